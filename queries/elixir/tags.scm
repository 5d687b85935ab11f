; Elixir extraction captures (see queries/README.md).
;
; The grammar parses every form as a `call`: `defmodule`, `def` and `alias` are calls whose
; target identifier names the macro, so each pattern tells them apart by that text.

; Modules: `defmodule Shop.Cart do .. end` (a nested `defmodule Inner` is
; `Shop.Cart.Inner`). `import Mod` and `use Mod` in the module's body bring Mod's functions
; into its bare calls (`use` runs Mod's `__using__`, which as a rule imports it): Mod is a
; base, as a Ruby mixin is. `defprotocol` declares an interface, `defimpl P, for: T` a
; module of its own.
((call target: (identifier) @_k (arguments . (alias) @name)) @definition.module
  (#eq? @_k "defmodule"))
((call target: (identifier) @_k (arguments . (alias) @name)
   (do_block (call target: (identifier) @_use (arguments . (alias) @base))))
  @definition.module
  (#eq? @_k "defmodule")
  (#any-of? @_use "import" "use"))
((call target: (identifier) @_k (arguments . (alias) @name)) @definition.interface
  (#eq? @_k "defprotocol"))

; Functions and macros, one definition per name: the clauses of a function
; (`def f(0)`, `def f(n)`) are one (ExtractionRules::adjacent_clauses_merge). The head is
; `name(args)`, a bare `name`, or either before a `when` guard.
((call target: (identifier) @_k
   (arguments . [(call target: (identifier) @name) (identifier) @name]))
  @definition.function
  (#any-of? @_k "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate"
    "defn" "defnp"))
((call target: (identifier) @_k
   (arguments . (binary_operator
     left: [(call target: (identifier) @name) (identifier) @name] operator: "when")))
  @definition.function
  (#any-of? @_k "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defn" "defnp"))
; Calls in a head are its patterns and guards, not calls of the function.
((call target: (identifier) @_k (arguments . [(call) (binary_operator)] @no_calls))
  (#any-of? @_k "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate"
    "defn" "defnp"))

; `alias A.B`, `alias A.B, as: C`, `alias A.{B, C}` bind a short name to a module (the
; language's hook reads them).
((call target: (identifier) @_k (arguments . [(alias) (dot)])) @import
  (#eq? @_k "alias"))

; Module attributes (`@doc`, `@spec`, `@moduledoc`) are data read at compile time.
(unary_operator operator: "@" operand: (call) @no_calls)

; Calls. A local call `f(x)` (or `f x`, a macro call such as `raise`), a remote call
; `Mod.f(x)`, `Mod.f` or `mod.f(x)`, and the function a pipe calls (`x |> f`). The
; language's special forms and definition macros are syntax, not calls.
((call target: (identifier) @call.name) @call
  (#not-any-of? @call.name
    "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defn" "defnp"
    "defmodule" "defprotocol" "defimpl" "defstruct" "defexception" "defoverridable"
    "alias" "import" "require" "use" "if" "unless" "case" "cond" "with" "for" "receive"
    "try" "quote" "unquote" "unquote_splicing" "fn" "super" "__block__"))
(call target: (dot left: (alias) @call.receiver right: (identifier) @call.name)) @call
(call target: (dot left: [(identifier) (atom) (call) (unary_operator) (dot)] @call.receiver
   right: (identifier) @call.name) (arguments)) @call
(binary_operator operator: "|>" right: (identifier) @call.name @call)

; A captured function (`&helper/1`) is a reference to it.
(unary_operator operator: "&"
  operand: (binary_operator left: (identifier) @reference operator: "/"))

(comment) @comment
