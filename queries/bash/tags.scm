; Bash extraction captures (see queries/README.md).

; `name() { .. }` and `function name { .. }`.
(function_definition name: (word) @name) @definition.function

; `source FILE` and `. FILE` (the language's hook reads the path).
((command name: (command_name (word) @_source) argument: (_))
  @import
  (#any-of? @_source "source" "."))

; Commands named by a word are calls: a function of the script or a sourced file, else a
; builtin or a program on the PATH. A name computed at run time (`$cmd`, `"$handler"`,
; `eval "deploy_$env"`) has no word to resolve.
((command name: (command_name (word) @call.name)) @call
  (#not-any-of? @call.name "source" "."))

(comment) @comment
