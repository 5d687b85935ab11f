; Dart extraction captures (see queries/README.md).

; Types. `extends` names the superclass; `with` mixins and `implements` interfaces are
; bases whose members a subclass has too.
(class_declaration name: (identifier) @name) @definition.class
(class_declaration name: (identifier) @name
  superclass: (superclass type: (type (type_identifier) @base))) @definition.class
(class_declaration name: (identifier) @name
  superclass: (superclass (mixins (type (type_identifier) @implements)))) @definition.class
(class_declaration name: (identifier) @name
  interfaces: (interfaces (type (type_identifier) @implements))) @definition.class
(mixin_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.enum
(extension_declaration name: (identifier) @name) @definition.class

; Functions and methods (the declaration node holds the signature and the body), abstract
; methods, constructors (`A(..)`, named `A.named(..)`, `factory A.make(..)`).
(function_declaration signature: (function_signature name: (identifier) @name)) @definition.function
(function_declaration signature: (function_signature return_type: (type) @returns
  name: (identifier) @name)) @definition.function
(method_declaration signature: (method_signature (function_signature name: (identifier) @name)))
  @definition.function
(method_declaration signature: (method_signature (function_signature return_type: (type) @returns
  name: (identifier) @name))) @definition.function
(declaration (function_signature name: (identifier) @name)) @definition.function
(declaration (constructor_signature . (identifier) @name . (formal_parameter_list)))
  @definition.function
(declaration (constructor_signature (identifier) "." . (identifier) @name)) @definition.function
(method_declaration signature: (method_signature
  (constructor_signature . (identifier) @name . (formal_parameter_list)))) @definition.function
(method_declaration signature: (method_signature
  (constructor_signature (identifier) "." . (identifier) @name))) @definition.function
(method_declaration signature: (method_signature
  (factory_constructor_signature . (identifier) @name . (formal_parameter_list)))) @definition.function
(method_declaration signature: (method_signature
  (factory_constructor_signature (identifier) "." . (identifier) @name))) @definition.function

; Imports (the language's hook reads the URI and an `as` prefix).
(import_specification) @import

; Calls. `Foo(..)` and `new Foo(..)` construct a `Foo`.
((call_expression function: (identifier) @call.name arguments: (arguments) @call.args) @call.new
  (#match? @call.name "^_?[A-Z]"))
((call_expression function: (identifier) @call.name arguments: (arguments) @call.args) @call
  (#not-match? @call.name "^_?[A-Z]"))
(call_expression function: (member_expression object: _ @call.receiver property: (identifier) @call.name)
  arguments: (arguments) @call.args) @call
(new_expression type: (type (type_identifier) @call.name) arguments: (arguments) @call.args) @call.new
(const_object_expression type: (type (type_identifier) @call.name) arguments: (arguments) @call.args) @call.new

; Typed names: fields, locals, parameters, and `var x = Foo()`.
(declaration (type) @local.type
  (initialized_identifier_list (initialized_identifier name: (identifier) @local.name)))
(initialized_variable_declaration (type) @local.type name: (identifier) @local.name)
(initialized_variable_declaration name: (identifier) @local.name
  value: (call_expression function: (identifier) @local.type))
(initialized_variable_declaration name: (identifier) @local.name
  value: (new_expression type: (type) @local.type))
; `p.Context(..)` through an import prefix: a class's name starts with a capital.
((initialized_variable_declaration name: (identifier) @local.name
  value: (call_expression function: (member_expression property: (identifier) @local.type)))
  (#match? @local.type "^[A-Z]"))
(formal_parameter (type) @local.type name: (identifier) @local.name)
; Any parameter or local hides a function of its name from the calls after it.
(formal_parameter name: (identifier) @local.name)
(initialized_variable_declaration name: (identifier) @local.name)

[(comment) (documentation_comment)] @comment
(annotation) @annotation
