; Rust extraction captures (see queries/README.md).

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(trait_item name: (type_identifier) @name
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @base)) @definition.trait
(impl_item type: (_) @name) @definition.impl
(impl_item trait: (_) @implements type: (_) @name) @definition.impl
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(type_item name: (type_identifier) @name) @definition.type_alias
(macro_definition name: (identifier) @name) @definition.function

(use_declaration) @import

(call_expression function: (identifier) @call.name) @call
(call_expression
  function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name)) @call
(call_expression
  function: (scoped_identifier path: (_) @call.qualifier name: (identifier) @call.name)) @call
(call_expression
  function: (generic_function function: (identifier) @call.name)) @call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name))) @call
(call_expression
  function: (generic_function
    function: (scoped_identifier path: (_) @call.qualifier name: (identifier) @call.name))) @call

; Calls written inside macro arguments (`assert_eq!(f(x), 1)`, `format!("{}", s.len())`)
; are token trees, not expressions: an identifier directly followed by a parenthesised
; token tree is a call; a preceding `.` or `::` names the receiver.
((token_tree (identifier) @call.name . (token_tree) @_args) @call
  (#match? @_args "^\\("))
((token_tree [(identifier) (self)] @call.receiver . "." . (identifier) @call.name . (token_tree) @_args) @call
  (#match? @_args "^\\("))

[(line_comment) (block_comment)] @comment
(attribute_item) @annotation
; Attribute arguments are token trees too, but metadata, not calls (`#[cfg(all(unix))]`).
[(attribute_item) (inner_attribute_item)] @no_calls

; Typed names (receiver typing): `let x = Foo::new()`, `let x = Foo { .. }`, `let x: Foo`,
; parameters and struct fields with a named type.
(let_declaration pattern: (identifier) @local.name
  value: (call_expression function: (scoped_identifier path: (identifier) @local.type)))
; `let t = Thing::<()>::new()`: the type before the turbofish.
(let_declaration pattern: (identifier) @local.name
  value: (call_expression function: (scoped_identifier path: (generic_type type: (type_identifier) @local.type))))
; `let m = one.merge(two)`: the method call, typed by its declared return type.
(let_declaration pattern: (identifier) @local.name
  value: (call_expression function: (field_expression)) @local.value)
(let_declaration pattern: (identifier) @local.name
  value: (struct_expression name: (type_identifier) @local.type))
(let_declaration pattern: (identifier) @local.name
  type: [(type_identifier) (generic_type) (scoped_type_identifier)
         (reference_type type: [(type_identifier) (generic_type) (scoped_type_identifier)])] @local.type)
(parameter pattern: (identifier) @local.name
  type: [(type_identifier) @local.type
         (reference_type type: [(type_identifier) (generic_type) (scoped_type_identifier)] @local.type)])
(field_declaration name: (field_identifier) @local.name
  type: [(type_identifier) (generic_type) (scoped_type_identifier)
         (reference_type type: [(type_identifier) (generic_type) (scoped_type_identifier)])] @local.type)

; Functions used as values (`map(parse_line)`, `spawn(Self::run)`).
(arguments (identifier) @reference)
(arguments (scoped_identifier path: (_) @reference.receiver name: (identifier) @reference))
; ... and as the value of a struct field (`calloc: ts_calloc`), a `let`, an assignment or
; an array element (`[parse_a, parse_b]`).
(field_initializer value: (identifier) @reference)
(field_initializer value: (scoped_identifier path: (_) @reference.receiver name: (identifier) @reference))
(let_declaration value: (identifier) @reference)
(let_declaration value: (scoped_identifier path: (_) @reference.receiver name: (identifier) @reference))
(assignment_expression right: (identifier) @reference)
(array_expression (identifier) @reference)
(array_expression (scoped_identifier path: (_) @reference.receiver name: (identifier) @reference))

; Return types (`fn new() -> Self`, `fn open() -> Store`) and `let x = make()`.
(function_item name: (identifier) @name
  return_type: [(type_identifier) (generic_type) (scoped_type_identifier)] @returns) @definition.function
(let_declaration pattern: (identifier) @local.name
  value: (call_expression function: (identifier) @local.type))

; Generic type parameters with their trait bounds (`<R: Read>`, `where R: Read`, `<T>`):
; a receiver typed `R` is a value of a bound trait, never a same-named repo type (an
; `impl<A: Automaton> Automaton for &A` block is named `A`). `impl Trait` and `dyn Trait`
; values (parameters, locals, fields; `&dyn Trait`, `Box<dyn Trait>`) are the trait's.
(type_parameter name: (type_identifier) @local.name) @local.bound
(where_predicate left: (type_identifier) @local.name bounds: (trait_bounds) @local.bound)
(parameter pattern: (identifier) @local.name
  type: [(abstract_type trait: (_) @local.bound)
         (dynamic_type trait: (_) @local.bound)
         (reference_type type: [(abstract_type trait: (_) @local.bound)
                                (dynamic_type trait: (_) @local.bound)])])
(let_declaration pattern: (identifier) @local.name
  type: (reference_type type: (dynamic_type trait: (_) @local.bound)))
(field_declaration name: (field_identifier) @local.name
  type: (reference_type type: (dynamic_type trait: (_) @local.bound)))
((parameter pattern: (identifier) @local.name
   type: (generic_type type: (type_identifier) @_box
     type_arguments: (type_arguments . (dynamic_type trait: (_) @local.bound))))
  (#any-of? @_box "Box" "Arc" "Rc"))
((let_declaration pattern: (identifier) @local.name
   type: (generic_type type: (type_identifier) @_box
     type_arguments: (type_arguments . (dynamic_type trait: (_) @local.bound))))
  (#any-of? @_box "Box" "Arc" "Rc"))
((field_declaration name: (field_identifier) @local.name
   type: (generic_type type: (type_identifier) @_box
     type_arguments: (type_arguments . (dynamic_type trait: (_) @local.bound))))
  (#any-of? @_box "Box" "Arc" "Rc"))
