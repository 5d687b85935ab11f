; Java extraction captures (see queries/README.md).

(class_declaration name: (identifier) @name) @definition.class
(class_declaration name: (identifier) @name
  superclass: (superclass [(type_identifier) (generic_type) (scoped_type_identifier)] @base)) @definition.class
(class_declaration name: (identifier) @name
  interfaces: (super_interfaces (type_list [(type_identifier) (generic_type) (scoped_type_identifier)] @implements))) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(interface_declaration name: (identifier) @name
  (extends_interfaces (type_list [(type_identifier) (generic_type) (scoped_type_identifier)] @base))) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_declaration name: (identifier) @name
  interfaces: (super_interfaces (type_list [(type_identifier) (generic_type)] @implements))) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name parameters: (formal_parameters) @params) @definition.method
(constructor_declaration name: (identifier) @name parameters: (formal_parameters) @params) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor

(import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name)) @import
(import_declaration (scoped_identifier) @import.module (asterisk) @import.glob) @import

(method_invocation !object name: (identifier) @call.name arguments: (argument_list) @call.args) @call
(method_invocation object: (_) @call.receiver name: (identifier) @call.name
  arguments: (argument_list) @call.args) @call
(object_creation_expression type: (type_identifier) @call.name arguments: (argument_list) @call.args) @call.new
(object_creation_expression type: (generic_type (type_identifier) @call.name)
  arguments: (argument_list) @call.args) @call.new
(object_creation_expression
  type: (scoped_type_identifier (_) @call.receiver . (type_identifier) @call.name)
  arguments: (argument_list) @call.args) @call.new
; `this(..)` and `super(..)` as the first statement of a constructor.
(explicit_constructor_invocation !object constructor: [(this) (super)] @call.name
  arguments: (argument_list) @call.args) @call

; Typed names: fields, locals and parameters with their declared types.
(field_declaration type: (_) @local.type declarator: (variable_declarator name: (identifier) @local.name))
(local_variable_declaration type: (_) @local.type declarator: (variable_declarator name: (identifier) @local.name))
(formal_parameter type: (_) @local.type name: (identifier) @local.name)
(enhanced_for_statement type: (_) @local.type name: (identifier) @local.name)
(resource type: (_) @local.type name: (identifier) @local.name)
; `catch (A | B e)` gives `e` two types, which disagree, so it stays untyped.
(catch_formal_parameter (catch_type (_) @local.type) name: (identifier) @local.name)

[(line_comment) (block_comment)] @comment
[(marker_annotation) (annotation)] @annotation

; Method references (`Foo::bar`, `this::handle`).
(method_reference . (_) @reference.receiver (identifier) @reference .)

; Return types.
(method_declaration type: [(type_identifier) (generic_type) (scoped_type_identifier)] @returns
  name: (identifier) @name) @definition.method

; The declared package.
(package_declaration [(scoped_identifier) (identifier)] @package)

; An enum constant with arguments (`GET(false)`) calls its enum's constructor (JLS 8.9.1);
; the spec's `self_constructions` reads it as `this(...)`.
(enum_constant name: (identifier) @call.name arguments: (argument_list) @call.args) @call
