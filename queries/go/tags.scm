; Go extraction captures (see queries/README.md).

(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @container
             (pointer_type (type_identifier) @container)
             (generic_type type: (type_identifier) @container)
             (pointer_type (generic_type type: (type_identifier) @container))]))
  name: (field_identifier) @name) @definition.method
(method_declaration
  receiver: (parameter_list (parameter_declaration name: (identifier) @self))
  name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name
  type: (struct_type (field_declaration_list
    (field_declaration !name type: [(type_identifier) (qualified_type) (pointer_type)] @base)))) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
; An embedded interface's methods are the interface's own (Go spec, "Embedded
; interfaces"): `storage.Storer` embeds `storer.ReferenceStorer`.
(type_spec name: (type_identifier) @name
  type: (interface_type (type_elem . [(type_identifier) (qualified_type)] @base .))) @definition.interface
(type_spec name: (type_identifier) @name
  type: [(type_identifier) (qualified_type) (pointer_type) (function_type) (map_type)
         (slice_type) (array_type) (channel_type) (generic_type)]) @definition.type_alias
(type_alias name: (type_identifier) @name) @definition.type_alias
(method_elem name: (field_identifier) @name) @definition.method
(const_spec name: (identifier) @name) @definition.constant

(import_spec name: (_) @import.alias path: (_) @import.module) @import
(import_spec !name path: (_) @import.module) @import

(call_expression function: (identifier) @call.name) @call
(call_expression
  function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name)) @call

(comment) @comment

; Typed names (receiver typing): `x := Foo{}`, `x := &Foo{}`, `var x Foo`, parameters and
; struct fields.
(short_var_declaration left: (expression_list . (identifier) @local.name)
  right: (expression_list . (composite_literal type: (type_identifier) @local.type)))
(short_var_declaration left: (expression_list . (identifier) @local.name)
  right: (expression_list . (unary_expression operand: (composite_literal type: (type_identifier) @local.type))))
(var_spec name: (identifier) @local.name type: [(type_identifier) @local.type (pointer_type (type_identifier) @local.type)])
(parameter_declaration name: (identifier) @local.name type: [(type_identifier) @local.type (pointer_type (type_identifier) @local.type) (qualified_type) @local.type (pointer_type (qualified_type) @local.type)])
; Fields of named struct types only: an anonymous struct's fields inside a function (a
; table test's `[]struct{ name string }`) are no locals of that function.
(type_spec type: (struct_type (field_declaration_list (field_declaration
  name: (field_identifier) @local.name
  type: [(type_identifier) @local.type (pointer_type (type_identifier) @local.type) (qualified_type) @local.type (pointer_type (qualified_type) @local.type)]))))
; An embedded field is named after its type (`io.Writer` → `Writer`): `r.Writer.Write()`
; selects it (Go spec, "Struct types").
(type_spec type: (struct_type (field_declaration_list
  (field_declaration !name type: (type_identifier) @local.name @local.type))))
(type_spec type: (struct_type (field_declaration_list
  (field_declaration !name type: (pointer_type (type_identifier) @local.name @local.type)))))
(type_spec type: (struct_type (field_declaration_list
  (field_declaration !name type: (qualified_type name: (type_identifier) @local.name) @local.type))))
(type_spec type: (struct_type (field_declaration_list
  (field_declaration !name type: (pointer_type (qualified_type name: (type_identifier) @local.name) @local.type)))))

; Names bound in a function whatever their type (`helper := func() int {..}`, a parameter
; `f func() int`): a bare call of one there calls the value, not a package function.
(short_var_declaration left: (expression_list (identifier) @local.name))
(parameter_declaration name: (identifier) @local.name)
(var_spec name: (identifier) @local.name)

; Functions used as values (`http.HandleFunc("/", handle)`, `sort.Slice(xs, s.less)`).
(argument_list (identifier) @reference)
(argument_list (selector_expression operand: (_) @reference.receiver field: (field_identifier) @reference))

; Return types (factories: `func NewMemory() *Memory`) and bindings from calls and
; qualified composite literals. A selector callee is kept whole (`store.NewMemory`,
; `t.Field`): only a package qualifier makes it a factory or a type, a value's is a method.
(function_declaration name: (identifier) @name
  result: [(type_identifier) @returns (pointer_type (type_identifier) @returns)
           (qualified_type) @returns (pointer_type (qualified_type) @returns)]) @definition.function
(function_declaration name: (identifier) @name
  result: (parameter_list . (parameter_declaration
    type: [(type_identifier) @returns (pointer_type (type_identifier) @returns)]))) @definition.function
; Methods and interface methods: `func (c *Commit) File(p string) (*File, error)`; a
; qualified result (`reflect.Value`) keeps its qualifier.
(method_declaration name: (field_identifier) @name
  result: [(type_identifier) @returns (pointer_type (type_identifier) @returns)
           (qualified_type) @returns (pointer_type (qualified_type) @returns)]) @definition.method
(method_declaration name: (field_identifier) @name
  result: (parameter_list . (parameter_declaration
    type: [(type_identifier) @returns (pointer_type (type_identifier) @returns)
           (qualified_type) @returns (pointer_type (qualified_type) @returns)]))) @definition.method
(method_elem name: (field_identifier) @name
  result: [(type_identifier) @returns (pointer_type (type_identifier) @returns)
           (qualified_type) @returns (pointer_type (qualified_type) @returns)]) @definition.method
(method_elem name: (field_identifier) @name
  result: (parameter_list . (parameter_declaration
    type: [(type_identifier) @returns (pointer_type (type_identifier) @returns)
           (qualified_type) @returns (pointer_type (qualified_type) @returns)]))) @definition.method
; `b := new(blame)`: a pointer to a new `blame` (the grammar reads the type as an
; expression).
((short_var_declaration left: (expression_list . (identifier) @local.name)
  right: (expression_list . (call_expression
    function: (identifier) @_new
    arguments: (argument_list . [(identifier) (type_identifier) (qualified_type) (selector_expression)] @local.type))))
  (#eq? @_new "new"))
((short_var_declaration left: (expression_list . (identifier) @local.name)
  right: (expression_list . (call_expression function: (identifier) @local.type)))
  (#not-eq? @local.type "new"))
; A package function's or a method's result (`m := store.NewMemory()`, `file, err :=
; c.File(path)`): the call, typed by its return type.
(short_var_declaration left: (expression_list . (identifier) @local.name)
  right: (expression_list . (call_expression
    function: (selector_expression operand: [(identifier) (selector_expression) (call_expression)])) @local.value))
(short_var_declaration left: (expression_list . (identifier) @local.name)
  right: (expression_list . (composite_literal type: (qualified_type) @local.type)))
(short_var_declaration left: (expression_list . (identifier) @local.name)
  right: (expression_list . (unary_expression operand: (composite_literal type: (qualified_type) @local.type))))

; The package clause names the package for importers (it may differ from the folder).
(package_clause (package_identifier) @package)
