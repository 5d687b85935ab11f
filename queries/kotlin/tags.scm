; Kotlin extraction captures (see queries/README.md).

; Types. A supertype written with a constructor call (`: Record()`) is the superclass;
; one without (`: Shape`) an interface (a class has at most one superclass, and only a
; class is constructed in the header).
; The first pattern to match a node gives its kind: interfaces and enums before classes.
(class_declaration "interface" name: (identifier) @name) @definition.interface
((class_declaration (modifiers (class_modifier) @_enum) name: (identifier) @name)
  @definition.enum
  (#eq? @_enum "enum"))
(class_declaration name: (identifier) @name) @definition.class
(class_declaration name: (identifier) @name
  (delegation_specifiers (delegation_specifier
    (constructor_invocation (user_type (identifier) @base))))) @definition.class
(class_declaration name: (identifier) @name
  (delegation_specifiers (delegation_specifier (user_type (identifier) @implements)))) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name
  (delegation_specifiers (delegation_specifier
    (constructor_invocation (user_type (identifier) @base))))) @definition.class
(object_declaration name: (identifier) @name
  (delegation_specifiers (delegation_specifier (user_type (identifier) @implements)))) @definition.class
(type_alias type: (identifier) @name) @definition.type_alias

; Functions. An extension function (`fun Buffer.readUtf8Line()`) is written outside its
; receiver type: the type is its container, so `this` and bare calls in its body reach
; the type's members and `buffer.readUtf8Line()` on a typed `buffer` finds it. Members
; of a `companion object` are the class's (`Invoice.create()`).
(function_declaration name: (identifier) @name
  (function_value_parameters) @params) @definition.function
(function_declaration (user_type . (identifier) @container) . name: (identifier) @name)
  @definition.function
(function_declaration name: (identifier) @name (function_value_parameters)
  . [(user_type) (nullable_type)] @returns) @definition.function

; Imports (the language's hook reads the path, an `as` alias and a `.*` glob) and the
; declared package.
(import) @import
(package_header (qualified_identifier) @package)

; Calls.
(call_expression . (identifier) @call.name (value_arguments) @call.args) @call
(call_expression . (identifier) @call.name . (annotated_lambda)) @call
(call_expression
  . (navigation_expression . (_) @call.receiver . (identifier) @call.name .)
  (value_arguments) @call.args) @call
(call_expression
  . (navigation_expression . (_) @call.receiver . (identifier) @call.name .)
  . (annotated_lambda)) @call

; Function references (`::helper`, `this::handle`, `Foo::bar`).
(callable_reference . (identifier) @reference .)
(callable_reference . (_) @reference.receiver . (identifier) @reference .)

; Typed names: properties, constructor properties, parameters, and `val x = Foo()`.
(property_declaration (variable_declaration (identifier) @local.name
  [(user_type) (nullable_type)] @local.type))
(property_declaration (variable_declaration (identifier) @local.name .)
  (call_expression . (identifier) @local.type))
; `val bytes = name.encodeUtf8()`: typed by the declared return type of what it calls.
(property_declaration (variable_declaration (identifier) @local.name .)
  (call_expression . (navigation_expression)) @local.value)
(class_parameter (identifier) @local.name [(user_type) (nullable_type)] @local.type)
(parameter (identifier) @local.name [(user_type) (nullable_type)] @local.type)
; Any parameter or local, typed or not (a function type, `handler: () -> Unit`), hides a
; function of its name from the calls after it.
(parameter (identifier) @local.name)
(property_declaration (variable_declaration (identifier) @local.name))

[(line_comment) (block_comment)] @comment
(annotation) @annotation
