; C# extraction captures (see queries/README.md).

(class_declaration name: (identifier) @name) @definition.class
(class_declaration name: (identifier) @name (base_list (_) @base)) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(struct_declaration name: (identifier) @name (base_list (_) @base)) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(interface_declaration name: (identifier) @name (base_list (_) @base)) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(namespace_declaration name: (_) @name) @definition.namespace
; `namespace A.B;` has no body: it scopes the rest of the file (see extract.rs).
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace

(using_directive (qualified_name) @import.module @import.glob) @import
(using_directive (identifier) @import.module @import.glob) @import

(invocation_expression function: (identifier) @call.name) @call
; `_`, not `(_)`: `this` and `base` are anonymous nodes in this position.
(invocation_expression
  function: (member_access_expression expression: _ @call.receiver name: (identifier) @call.name)) @call
(invocation_expression
  function: (member_access_expression expression: _ @call.receiver name: (generic_name (identifier) @call.name))) @call
(invocation_expression
  function: (generic_name (identifier) @call.name)) @call
(object_creation_expression type: (identifier) @call.name) @call.new
(object_creation_expression type: (generic_name (identifier) @call.name)) @call.new

; Typed names: fields, locals and parameters with their declared types; `var x = new T()`
; takes the constructed type (`var` itself names no type).
(field_declaration (variable_declaration type: (_) @local.type (variable_declarator name: (identifier) @local.name)))
(local_declaration_statement (variable_declaration
  type: [(identifier) (qualified_name) (generic_name) (nullable_type) (predefined_type)] @local.type
  (variable_declarator name: (identifier) @local.name)))
(local_declaration_statement (variable_declaration type: (implicit_type)
  (variable_declarator name: (identifier) @local.name
    (object_creation_expression type: [(identifier) (qualified_name) (generic_name)] @local.type))))
(using_statement (variable_declaration type: (implicit_type)
  (variable_declarator name: (identifier) @local.name
    (object_creation_expression type: [(identifier) (qualified_name) (generic_name)] @local.type))))
(parameter type: (_) @local.type name: (identifier) @local.name)
(property_declaration type: (_) @local.type name: (identifier) @local.name)

(argument (identifier) @reference)

(comment) @comment
(attribute_list) @annotation

; Parameter and argument counts: overloads are told apart by them.
(method_declaration name: (identifier) @name parameters: (parameter_list) @params) @definition.method
(constructor_declaration name: (identifier) @name parameters: (parameter_list) @params) @definition.constructor
(invocation_expression function: (identifier) @call.name arguments: (argument_list) @call.args) @call
(invocation_expression
  function: (member_access_expression expression: _ @call.receiver name: (identifier) @call.name)
  arguments: (argument_list) @call.args) @call
(object_creation_expression type: (identifier) @call.name arguments: (argument_list) @call.args) @call.new
