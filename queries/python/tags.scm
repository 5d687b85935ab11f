; Python extraction captures (see queries/README.md).

(function_definition name: (identifier) @name) @definition.function
; Properties are read, not called: `obj.name()` never calls a `@property` (nor its
; `@name.setter`, nor a `@cached_property`).
(decorated_definition
  (decorator (identifier) @accessor (#any-of? @accessor "property" "cached_property"))
  definition: (function_definition) @definition.function)
(decorated_definition
  (decorator (attribute attribute: (identifier) @accessor)
    (#any-of? @accessor "setter" "getter" "deleter" "cached_property"))
  definition: (function_definition) @definition.function)
(function_definition name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @definition.function
(class_definition name: (identifier) @name) @definition.class
(class_definition name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @definition.class
(class_definition name: (identifier) @name
  superclasses: (argument_list [(identifier) (attribute) (subscript)] @base)) @definition.class

(import_statement name: (dotted_name) @import.module) @import
(import_statement
  name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.glob) @import

(call function: (identifier) @call.name) @call
; A decorator without arguments calls its function with the decorated one (`@setupmethod`,
; `@functools.cache`); with arguments it is a `call` already. `@x.setter` and the like
; are the property's own.
(decorator (identifier) @call.name) @call
((decorator (attribute object: (_) @call.receiver attribute: (identifier) @call.name)) @call
  (#not-any-of? @call.name "setter" "getter" "deleter"))
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name)) @call
; A call of a subscripted name: a generic class instantiated with its type argument
; (`ConfigAttribute[bool]("TESTING")`, PEP 560's `__class_getitem__`) calls the class.
(call function: (subscript value: (identifier) @call.name)) @call
(call function: (subscript value: (attribute object: (_) @call.receiver attribute: (identifier) @call.name))) @call

; Typed names (receiver typing): `x = Foo(...)`, `x = mod.Foo(...)`, `self.x = Foo(...)`,
; `x: Foo`, parameters `x: Foo`.
(assignment left: (identifier) @local.name right: (call function: (identifier) @local.type))
(assignment left: (identifier) @local.name
  right: (call function: (attribute object: (identifier) attribute: (identifier)) @local.type))
(assignment left: (identifier) @local.name
  right: (call function: (attribute attribute: (identifier) @local.type)))
((assignment left: (attribute object: (identifier) @_self) @local.name
   right: (call function: [(identifier) (attribute)] @local.type))
  (#eq? @_self "self"))
(assignment left: (identifier) @local.name type: (type [(identifier) (attribute)] @local.type))
((assignment left: (attribute object: (identifier) @_self) @local.name
   type: (type [(identifier) (attribute)] @local.type))
  (#eq? @_self "self"))
(typed_parameter (identifier) @local.name type: (type [(identifier) (attribute)] @local.type))
(typed_default_parameter name: (identifier) @local.name type: (type [(identifier) (attribute)] @local.type))
; `x: Foo | None`: the one named type (extraction drops `None`).
(typed_parameter (identifier) @local.name type: (type (binary_operator) @local.type))
(typed_default_parameter name: (identifier) @local.name type: (type (binary_operator) @local.type))
(assignment left: (identifier) @local.name type: (type (binary_operator) @local.type))

; Module-level aliases (`ib = attr = attrib` in attrs' `__init__.py`): importing the alias
; imports what it names.
(module (expression_statement
  (assignment left: (identifier) @local.name right: (identifier) @local.alias)))
(module (expression_statement
  (assignment left: (identifier) @local.name right: (assignment right: (identifier) @local.alias))))
(module (expression_statement
  (assignment right: (assignment left: (identifier) @local.name right: (identifier) @local.alias))))

; Names bound in a scope without a stated type: parameters, assignment and loop targets,
; `with ... as x`. Inside a function they are its locals (Python's scoping rule: a name
; bound anywhere in a function is local to all of it), so `f()` there calls the value,
; not a same-named module-level function.
(parameters (identifier) @local.name)
(parameters (default_parameter name: (identifier) @local.name))
(parameters (typed_parameter (identifier) @local.name))
(parameters (typed_default_parameter name: (identifier) @local.name))
(parameters (list_splat_pattern (identifier) @local.name))
(parameters (dictionary_splat_pattern (identifier) @local.name))
(assignment left: (identifier) @local.name)
(assignment left: [(pattern_list (identifier) @local.name) (tuple_pattern (identifier) @local.name)])
(augmented_assignment left: (identifier) @local.name)
(for_statement left: (identifier) @local.name)
(for_statement left: [(pattern_list (identifier) @local.name) (tuple_pattern (identifier) @local.name)])
(as_pattern alias: (as_pattern_target (identifier) @local.name))

; Functions used as values (callbacks): arguments, keyword arguments, returns, assignments,
; and elements of list, tuple and set literals and dict values (`on_setattr=[setters.convert,
; setters.validate]`, `{"json": dump_json}`).
(list (identifier) @reference)
(list (attribute object: (_) @reference.receiver attribute: (identifier) @reference))
(tuple (identifier) @reference)
(tuple (attribute object: (_) @reference.receiver attribute: (identifier) @reference))
(set (identifier) @reference)
(set (attribute object: (_) @reference.receiver attribute: (identifier) @reference))
(pair value: (identifier) @reference)
(pair value: (attribute object: (_) @reference.receiver attribute: (identifier) @reference))
(argument_list (identifier) @reference)
(argument_list (attribute object: (_) @reference.receiver attribute: (identifier) @reference))
(keyword_argument value: (identifier) @reference)
(keyword_argument value: (attribute object: (_) @reference.receiver attribute: (identifier) @reference))
(return_statement (identifier) @reference)
(assignment right: (identifier) @reference)

; Return types (`def make() -> Foo`).
(function_definition name: (identifier) @name
  return_type: (type [(identifier) (attribute) (string)] @returns)) @definition.function
