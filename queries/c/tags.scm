; C extraction captures (see queries/README.md). C++ inherits these.
; Only definitions with a body are definitions: a prototype in a header is the same
; function as its definition, so it makes no node of its own.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type_alias
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

(preproc_include path: (string_literal (string_content) @import.module) @import.glob) @import

(call_expression function: (identifier) @call.name) @call
(call_expression
  function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)) @call

; Typed names: locals, parameters and struct fields of a named struct type.
(declaration type: (type_identifier) @local.type
  declarator: [(identifier) @local.name
               (init_declarator declarator: (identifier) @local.name)
               (pointer_declarator declarator: (identifier) @local.name)
               (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.name))])
(parameter_declaration type: (type_identifier) @local.type
  declarator: [(identifier) @local.name (pointer_declarator declarator: (identifier) @local.name)])

; Functions used as values (`qsort(xs, n, sizeof *xs, compare)`).
(argument_list (identifier) @reference)

(comment) @comment
