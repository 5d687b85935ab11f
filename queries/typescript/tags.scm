; inherits: ecma
; TypeScript additions (see queries/README.md).

(abstract_class_declaration name: (_) @name) @definition.class
(class_declaration name: (_) @name
  (class_heritage (extends_clause value: (_) @base))) @definition.class
(class_declaration name: (_) @name
  (class_heritage (implements_clause (_) @implements))) @definition.class
(abstract_class_declaration name: (_) @name
  (class_heritage (extends_clause value: (_) @base))) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(interface_declaration name: (_) @name (extends_type_clause (_) @base)) @definition.interface
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(function_signature name: (_) @name) @definition.function
(type_alias_declaration name: (_) @name) @definition.type_alias
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; Typed names: annotated parameters, variables and class fields.
(required_parameter pattern: (identifier) @local.name
  type: (type_annotation [(type_identifier) (generic_type) (nested_type_identifier)] @local.type))
(optional_parameter pattern: (identifier) @local.name
  type: (type_annotation [(type_identifier) (generic_type) (nested_type_identifier)] @local.type))
; `x: Foo | null`, `x?: Foo | undefined`: the one named type of the union (extraction drops
; `null` and `undefined`; a union of two named types stays untyped).
(required_parameter pattern: (identifier) @local.name type: (type_annotation (union_type) @local.type))
(optional_parameter pattern: (identifier) @local.name type: (type_annotation (union_type) @local.type))
(variable_declarator name: (identifier) @local.name type: (type_annotation (union_type) @local.type))
(public_field_definition name: [(property_identifier) (private_property_identifier)] @local.name
  type: (type_annotation (union_type) @local.type))
(required_parameter pattern: (this) @local.name
  type: (type_annotation [(type_identifier) (generic_type)] @local.type))
(variable_declarator name: (identifier) @local.name
  type: (type_annotation [(type_identifier) (generic_type) (nested_type_identifier)] @local.type))
(public_field_definition name: (property_identifier) @local.name
  type: (type_annotation [(type_identifier) (generic_type) (nested_type_identifier)] @local.type))
(required_parameter (accessibility_modifier) pattern: (identifier) @local.name
  type: (type_annotation [(type_identifier) (generic_type)] @local.type))

; Return types and `const x = make()`.
(function_declaration name: (_) @name
  return_type: (type_annotation [(type_identifier) (generic_type)] @returns)) @definition.function
(method_definition name: (_) @name
  return_type: (type_annotation [(type_identifier) (generic_type)] @returns)) @definition.method
(variable_declarator name: (identifier) @local.name
  value: (call_expression function: [(identifier) @local.type (member_expression property: (property_identifier) @local.type)]))
(public_field_definition name: (private_property_identifier) @local.name
  type: (type_annotation [(type_identifier) (generic_type) (nested_type_identifier)] @local.type))
