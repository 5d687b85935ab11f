; Ruby extraction captures (see queries/README.md).

; Classes and modules. A module mixed in (`include`, `extend`, `prepend`) is a base: its
; methods are the class's, found by a bare call or through `self`.
(class name: [(constant) @name (scope_resolution name: (constant) @name)]) @definition.class
(class name: [(constant) @name (scope_resolution name: (constant) @name)]
  superclass: (superclass [(constant) (scope_resolution)] @base)) @definition.class
((class name: [(constant) @name (scope_resolution name: (constant) @name)]
  body: (body_statement
    (call !receiver method: (identifier) @_mixin
      arguments: (argument_list [(constant) (scope_resolution)] @base))))
  (#any-of? @_mixin "include" "extend" "prepend"))
  @definition.class
(module name: [(constant) @name (scope_resolution name: (constant) @name)]) @definition.module
((module name: [(constant) @name (scope_resolution name: (constant) @name)]
  body: (body_statement
    (call !receiver method: (identifier) @_mixin
      arguments: (argument_list [(constant) (scope_resolution)] @base))))
  (#any-of? @_mixin "include" "extend" "prepend"))
  @definition.module

; Methods: `def x`, `def self.x` (and `class << self; def x`), all the class's methods.
; `attr_accessor :x` defines accessors, no code of the repository's: no definition.
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

; `require 'x'`, `require_relative 'x'`, `load 'x.rb'` (the language's hook reads them).
((call !receiver method: (identifier) @_req arguments: (argument_list (string)))
  @import
  (#any-of? @_req "require" "require_relative" "load"))

; Calls. `Foo.new(..)` constructs a `Foo` (its `initialize`); a method named by a symbol
; or string (`send(:x)`, `public_send`) is dynamic and stays unresolved.
((call !receiver method: (identifier) @call.name) @call
  (#not-any-of? @call.name "require" "require_relative" "load"))
((call receiver: (_) @call.receiver method: (identifier) @call.name) @call
  (#not-eq? @call.name "new"))
((call receiver: (constant) @call.name method: (identifier) @_new) @call.new
  (#eq? @_new "new"))
((call receiver: (scope_resolution scope: (_) @call.receiver name: (constant) @call.name)
   method: (identifier) @_new)
  @call.new
  (#eq? @_new "new"))
; A bare name as a statement is a call of a method without arguments (`save`, `helper`)
; unless it is a local variable of the method (then local shadowing drops it) or a
; visibility keyword.
((body_statement (identifier) @call.name @call)
  (#not-any-of? @call.name "private" "public" "protected" "module_function"))
(program (identifier) @call.name @call)
(then (identifier) @call.name @call)
(else (identifier) @call.name @call)
(if_modifier body: (identifier) @call.name @call)
(unless_modifier body: (identifier) @call.name @call)

; Local names: parameters, assignments and block parameters shadow methods of the same
; name in their method; `x = Foo.new` and `@x = Foo.new` type `x` and `@x`.
(method_parameters (identifier) @local.name)
(method_parameters (optional_parameter name: (identifier) @local.name))
(method_parameters (keyword_parameter name: (identifier) @local.name))
(lambda_parameters (identifier) @local.name)
(block_parameters (identifier) @local.name)
(assignment left: (identifier) @local.name)
(operator_assignment left: (identifier) @local.name)
((assignment left: [(identifier) (instance_variable)] @local.name
   right: (call receiver: [(constant) (scope_resolution)] @local.type method: (identifier) @_new))
  (#eq? @_new "new"))

(comment) @comment
