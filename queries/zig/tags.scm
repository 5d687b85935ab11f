; Zig extraction captures (see queries/README.md).

; Containers: `const S = struct { .. }` (and enums, unions, opaques) is a namespace whose
; functions are its methods, `S.f()` or `s.f()` on a value of type S. A file is itself a
; struct: its top-level functions are what `@import("x.zig")` gives.
(variable_declaration . (identifier) @name (struct_declaration)) @definition.struct
(variable_declaration . (identifier) @name (union_declaration)) @definition.struct
(variable_declaration . (identifier) @name (opaque_declaration)) @definition.struct
(variable_declaration . (identifier) @name (enum_declaration)) @definition.enum
; `const Stack = @This();` at the top of Stack.zig names the file's struct: the file's
; functions are its methods, and `@import("Stack.zig")` gives it.
((source_file (variable_declaration . (identifier) @name
   (builtin_function (builtin_identifier) @_b)))
  @definition.struct
  (#eq? @_b "@This"))
(source_file (variable_declaration . (identifier) @export.default
  (builtin_function (builtin_identifier) @_b))
  (#eq? @_b "@This"))

(function_declaration name: (identifier) @name
  type: [(identifier) @returns (pointer_type (identifier) @returns)
         (error_union_type ok: [(identifier) @returns (pointer_type (identifier) @returns)])])
  @definition.function
(function_declaration name: (identifier) @name) @definition.function

; `test "name" { .. }` and `test name { .. }` blocks: tests, named by their string.
(test_declaration (string (string_content) @name)) @definition.function
(test_declaration (identifier) @name) @definition.function

; `const x = @import("x.zig")`, `const T = @import("x.zig").T` and `usingnamespace
; @import("x.zig")` (the language's hook reads them).
(variable_declaration . (identifier)
  [(builtin_function (builtin_identifier) @_b)
   (field_expression object: (builtin_function (builtin_identifier) @_b))]
  (#eq? @_b "@import")) @import
((using_namespace_declaration (builtin_function (builtin_identifier) @_b)) @import
  (#eq? @_b "@import"))
; `const mem = std.mem;`: another name for a member of the standard library.
(source_file (variable_declaration . (identifier)
  (field_expression object: [(identifier) (field_expression)]) @_v) @import)

; Calls: `f(x)`, `s.f(x)`, `S.f(x)`, `std.debug.print(..)`. Builtins (`@intCast`) are the
; compiler's.
(call_expression function: (identifier) @call.name) @call
(call_expression
  function: (field_expression object: (_) @call.receiver member: (identifier) @call.name))
  @call

; Typed names: `const x: T`, `var x = T.init(..)` (typed by what `init` returns),
; parameters and container fields. `self` is the method's own container, whatever its
; written type (`*Self`, `*const @This()`).
(variable_declaration . (identifier) @local.name
  type: [(identifier) @local.type (pointer_type (identifier) @local.type)
         (field_expression) @local.type])
(variable_declaration . (identifier) @local.name (call_expression) @local.value)
(variable_declaration . (identifier) @local.name
  (try_expression (call_expression) @local.value))
((parameter name: (identifier) @local.name
   type: [(identifier) @local.type (pointer_type (identifier) @local.type)
          (field_expression) @local.type])
  (#not-eq? @local.name "self")
  (#not-eq? @local.type "Self"))
(container_field name: (identifier) @local.name
  type: [(identifier) @local.type (pointer_type (identifier) @local.type)
         (field_expression) @local.type])

(comment) @comment
