; Scala extraction captures (see queries/README.md).

; Types. The first type after `extends` may be a class, so it is the base; the ones after
; `with` are traits mixed in. Objects are types whose members `Obj.f()` names.
(trait_definition name: (identifier) @name) @definition.interface
(trait_definition name: (identifier) @name
  extend: (extends_clause . type: [(type_identifier) (generic_type)] @base)) @definition.interface
(enum_definition name: (identifier) @name) @definition.enum
(class_definition name: (identifier) @name) @definition.class
(class_definition name: (identifier) @name
  extend: (extends_clause . type: [(type_identifier) (generic_type)] @base)) @definition.class
(class_definition name: (identifier) @name
  extend: (extends_clause "with" . type: [(type_identifier) (generic_type)] @implements)) @definition.class
(object_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name
  extend: (extends_clause . type: [(type_identifier) (generic_type)] @base)) @definition.class
(object_definition name: (identifier) @name
  extend: (extends_clause "with" . type: [(type_identifier) (generic_type)] @implements)) @definition.class
(type_definition name: (type_identifier) @name) @definition.type_alias

; Functions: `def`s with bodies, and abstract ones in traits.
(function_definition name: [(identifier) (operator_identifier)] @name) @definition.function
(function_definition name: [(identifier) (operator_identifier)] @name parameters: (parameters) @params) @definition.function
(function_definition name: [(identifier) (operator_identifier)] @name
  return_type: [(type_identifier) (generic_type)] @returns) @definition.function
(function_declaration name: [(identifier) (operator_identifier)] @name) @definition.function

; Imports (the language's hook reads paths, `{A, B => C}` selectors and `_`/`*` globs),
; and the declared package.
(import_declaration) @import
(package_clause name: (package_identifier) @package)

; Calls: `f(x)`, `a.f(x)`, `f[T](x)`, `new Foo(x)`.
; `this(..)` in an auxiliary constructor runs another constructor of the class, no
; function named `this`.
((call_expression function: (identifier) @call.name arguments: (arguments) @call.args) @call
  (#not-eq? @call.name "this"))
(call_expression function: (field_expression value: (_) @call.receiver field: (identifier) @call.name)
  arguments: (arguments) @call.args) @call
(call_expression function: (generic_function function: (identifier) @call.name)
  arguments: (arguments) @call.args) @call
(call_expression
  function: (generic_function function: (field_expression value: (_) @call.receiver field: (identifier) @call.name))
  arguments: (arguments) @call.args) @call
(instance_expression (type_identifier) @call.name (arguments) @call.args) @call.new
(instance_expression (type_identifier) @call.name) @call.new

; Typed names: parameters, class parameters, `val`s with a type or a construction.
(parameter name: (identifier) @local.name type: [(type_identifier) (generic_type)] @local.type)
(class_parameter name: (identifier) @local.name type: [(type_identifier) (generic_type)] @local.type)
(val_definition pattern: (identifier) @local.name type: [(type_identifier) (generic_type)] @local.type)
(var_definition pattern: (identifier) @local.name type: [(type_identifier) (generic_type)] @local.type)
(val_definition pattern: (identifier) @local.name value: (instance_expression (type_identifier) @local.type))
(val_definition pattern: (identifier) @local.name value: (call_expression function: (identifier) @local.type))
; Any parameter or local hides a function of its name from the calls after it.
(parameter name: (identifier) @local.name)
(val_definition pattern: (identifier) @local.name)

[(comment) (block_comment)] @comment
(annotation) @annotation
