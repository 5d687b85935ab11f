; inherits: c
; C++ additions (see queries/README.md).

(function_definition
  declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @container name: (identifier) @name))) @definition.method
(function_definition
  declarator: (reference_declarator (function_declarator
    declarator: (qualified_identifier scope: (_) @container name: (identifier) @name)))) @definition.method
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @container name: (identifier) @name)))) @definition.method
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(class_specifier name: (type_identifier) @name
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)) @definition.class
(struct_specifier name: (type_identifier) @name
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)) @definition.struct
(namespace_definition name: (_) @name body: (declaration_list)) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type_alias

(call_expression
  function: (qualified_identifier scope: (_) @call.qualifier name: (identifier) @call.name)) @call
(call_expression function: (template_function name: (identifier) @call.name)) @call
(new_expression type: (type_identifier) @call.name) @call.new
(new_expression type: (qualified_identifier scope: (_) @call.qualifier name: (type_identifier) @call.name)) @call.new

(field_declaration type: (type_identifier) @local.type
  declarator: [(field_identifier) @local.name (pointer_declarator declarator: (field_identifier) @local.name)])
(parameter_declaration type: (type_identifier) @local.type
  declarator: (reference_declarator (identifier) @local.name))

; Typed names with a namespace-qualified type (`json::Parser* p`, `util::Logger log;`), and
; `auto p = new T(...)` typed by the construction.
(declaration type: (qualified_identifier) @local.type
  declarator: [(identifier) @local.name
               (init_declarator declarator: (identifier) @local.name)
               (pointer_declarator declarator: (identifier) @local.name)
               (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.name))])
(declaration type: (placeholder_type_specifier)
  declarator: (init_declarator declarator: (identifier) @local.name
    value: (new_expression type: [(type_identifier) (qualified_identifier)] @local.type)))
(parameter_declaration type: [(type_identifier) (qualified_identifier)] @local.type
  declarator: [(reference_declarator (identifier) @local.name)
               (pointer_declarator declarator: (identifier) @local.name)])
(parameter_declaration type: (qualified_identifier) @local.type declarator: (identifier) @local.name)
(field_declaration type: (qualified_identifier) @local.type
  declarator: [(field_identifier) @local.name (pointer_declarator declarator: (field_identifier) @local.name)])

; `using namespace ns;` (every name of ns) and `using ns::f;` (one name).
(using_declaration "namespace" [(identifier) (qualified_identifier)] @import.module @import.glob) @import
(using_declaration (qualified_identifier scope: (_) @import.module name: (identifier) @import.name)) @import

; Parameter and argument counts: overloads are told apart by them.
(function_definition
  declarator: (function_declarator declarator: (qualified_identifier) parameters: (parameter_list) @params)) @definition.method
(function_definition
  declarator: (function_declarator declarator: [(identifier) (field_identifier)] parameters: (parameter_list) @params)) @definition.function
(call_expression function: (identifier) @call.name arguments: (argument_list) @call.args) @call
(call_expression
  function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)
  arguments: (argument_list) @call.args) @call
(call_expression
  function: (qualified_identifier scope: (_) @call.qualifier name: (identifier) @call.name)
  arguments: (argument_list) @call.args) @call
