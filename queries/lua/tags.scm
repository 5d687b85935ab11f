; Lua extraction captures (see queries/README.md).

; A module is a table: `local M = {}` (or `M = {}`) is a definition its functions belong
; to, `function M.f()` and `function M:m()` name it as their container, and the table a
; file returns (`return M`) is what `require` gives.
(variable_declaration
  (assignment_statement (variable_list . name: (identifier) @name .)
    (expression_list . value: (table_constructor) .))) @definition.module
(chunk
  (assignment_statement (variable_list . name: (identifier) @name .)
    (expression_list . value: (table_constructor) .)) @definition.module)
(chunk (return_statement (expression_list . (identifier) @export.default .)))

; Functions: `function f()`, `local function f()`, `function M.f()`, `function M:m()`
; (whose `self` is the table), and `M.f = function() .. end`.
(function_declaration name: (identifier) @name) @definition.function
(function_declaration
  name: (dot_index_expression table: (identifier) @container field: (identifier) @name))
  @definition.function
(function_declaration
  name: (method_index_expression table: (identifier) @container method: (identifier) @name))
  @definition.function
(assignment_statement
  (variable_list . name: (dot_index_expression table: (identifier) @container
    field: (identifier) @name) .)
  (expression_list . value: (function_definition) .)) @definition.function

; `local m = require("a.b")`, `local m = require "a.b"` (the language's hook reads them).
(variable_declaration
  (assignment_statement (variable_list . name: (identifier) .)
    (expression_list . value: (function_call name: (identifier) @_require) .))
  (#eq? @_require "require")) @import

; Calls: `f()`, `M.f()`, `obj:m()`. A function picked at run time (`M[name]()`,
; `handlers[k](x)`) has no name to resolve.
((function_call name: (identifier) @call.name) @call
  (#not-eq? @call.name "require"))
(function_call
  name: (dot_index_expression table: (_) @call.receiver field: (identifier) @call.name)) @call
(function_call
  name: (method_index_expression table: (_) @call.receiver method: (identifier) @call.name))
  @call

; Locals and parameters hide same-named functions from the calls after them.
(parameters name: (identifier) @local.name)
(variable_declaration (assignment_statement (variable_list name: (identifier) @local.name)))

(comment) @comment
