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

(using_directive (qualified_name) @import.module @import.glob) @import
(using_directive (identifier) @import.module @import.glob) @import

(invocation_expression function: (identifier) @call.name) @call
(invocation_expression
  function: (member_access_expression expression: (_) @call.receiver name: (identifier) @call.name)) @call
(invocation_expression
  function: (generic_name (identifier) @call.name)) @call
(object_creation_expression type: (identifier) @call.name) @call.new
(object_creation_expression type: (generic_name (identifier) @call.name)) @call.new

; Typed names: fields, locals and parameters.
(field_declaration (variable_declaration type: (_) @local.type (variable_declarator name: (identifier) @local.name)))
(local_declaration_statement (variable_declaration type: (_) @local.type (variable_declarator name: (identifier) @local.name)))
(parameter type: (_) @local.type name: (identifier) @local.name)

(argument (identifier) @reference)

(comment) @comment
(attribute_list) @annotation
