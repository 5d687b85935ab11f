; Swift extraction captures (see queries/README.md).

; Types. `class`, `struct`, `enum` and `actor` share one node, told apart by its
; declaration_kind. A class's first supertype may be its superclass, so it is the base; the
; others (and every supertype of a struct or enum) are protocols it conforms to.
(protocol_declaration name: (type_identifier) @name) @definition.interface
(protocol_declaration name: (type_identifier) @name
  (inheritance_specifier inherits_from: (user_type (type_identifier) @base))) @definition.interface
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: ["class" "actor"] name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: ["class" "actor"] name: (type_identifier) @name
  . (inheritance_specifier inherits_from: (user_type (type_identifier) @base))) @definition.class
(class_declaration declaration_kind: ["class" "actor"] name: (type_identifier) @name
  (inheritance_specifier) . (inheritance_specifier inherits_from: (user_type (type_identifier) @implements))) @definition.class
(class_declaration declaration_kind: ["struct" "enum"] name: (type_identifier) @name
  (inheritance_specifier inherits_from: (user_type (type_identifier) @implements))) @definition.struct
(typealias_declaration name: (type_identifier) @name) @definition.type_alias

; Functions. A method of an `extension Foo` block belongs to `Foo`, wherever the block is
; written: `foo.m()` on a typed `foo`, `self.m()` and bare calls in Foo's methods find it.
(function_declaration name: (simple_identifier) @name) @definition.function
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @container)
  body: (class_body (function_declaration name: (simple_identifier) @name) @definition.function))
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration name: "init" @name) @definition.function
(function_declaration name: (simple_identifier) @name
  [(user_type) (optional_type)] @returns . (function_body)) @definition.function

; Imports name whole modules (`import Foundation`): the files of a module see each other
; without one, so an import binds no repo name.
(import_declaration) @import

; Calls: `f(x)`, `f { .. }`, `a.f(x)`, `a.f { .. }`.
; A call of a type's name (`Mailer(host:)`) constructs it and runs its `init`.
((call_expression . (simple_identifier) @call.name . (call_suffix)) @call.new
  (#match? @call.name "^[A-Z]"))
((call_expression . (simple_identifier) @call.name . (call_suffix)) @call
  (#not-match? @call.name "^[A-Z]"))
(call_expression
  . (navigation_expression target: (_) @call.receiver
      suffix: (navigation_suffix suffix: (simple_identifier) @call.name))
  . (call_suffix)) @call

; Typed names: properties and locals with a type or a constructed value, and parameters.
(property_declaration name: (pattern bound_identifier: (simple_identifier) @local.name)
  (type_annotation [(user_type) (optional_type)] @local.type))
(property_declaration name: (pattern bound_identifier: (simple_identifier) @local.name)
  value: (call_expression . (simple_identifier) @local.type))
(parameter (simple_identifier) @local.name . [(user_type) (optional_type)] @local.type)
; Any parameter or local hides a function of its name from the calls after it (a closure
; parameter `handler: () -> Void` is what `handler()` runs).
(parameter (simple_identifier) @local.name . (_))
(property_declaration name: (pattern bound_identifier: (simple_identifier) @local.name))

[(comment) (multiline_comment)] @comment
(attribute) @annotation
