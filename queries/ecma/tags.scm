; Captures shared by JavaScript, TypeScript and TSX (see queries/README.md).

(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method
; Getters and setters are properties to their users: `x.context(..)` is never a call of
; `get context()`.
(method_definition "get" @accessor) @definition.method
(method_definition "set" @accessor) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
; `obj.name = function` and `Type.prototype.name = function` define a method of `obj`
; (`Type`): `this.other()` inside it finds its sibling members, and a bare call `name()`
; elsewhere does not reach it, since a function expression's own name is bound only inside
; its body (ECMA-262, FunctionExpression). CommonJS `exports.name = function` and
; `module.exports.name = function` stay module-level functions; any other object
; (`this.x`, `a.b.c`) too.
((assignment_expression
   left: (member_expression object: (identifier) @container property: (property_identifier) @name)
   right: [(arrow_function) (function_expression)])
  (#not-any-of? @container "exports" "module")) @definition.method
((assignment_expression
   left: (member_expression
     object: (member_expression object: (identifier) @container property: (property_identifier) @_proto)
     property: (property_identifier) @name)
   right: [(arrow_function) (function_expression)])
  (#eq? @_proto "prototype")) @definition.method
((assignment_expression
   left: (member_expression object: (identifier) @_object property: (property_identifier) @name)
   right: [(arrow_function) (function_expression)])
  (#any-of? @_object "exports" "module")) @definition.function
((assignment_expression
   left: (member_expression
     object: [(member_expression) (this) (call_expression) (subscript_expression) (parenthesized_expression)] @_object
     property: (property_identifier) @name)
   right: [(arrow_function) (function_expression)])
  (#not-match? @_object "^[A-Za-z_$][A-Za-z0-9_$]*[.]prototype$")) @definition.function

(import_statement (import_clause (identifier) @import.default)
  source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name)))
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_) @import.alias)))
  source: (string (string_fragment) @import.module)) @import
; `const x = require('./m')` binds what the module exports, like a default import.
((variable_declarator
   name: (identifier) @import.default
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @import.module)))) @import
  (#eq? @_require "require"))
((variable_declarator
   name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @import.module)))) @import
  (#eq? @_require "require"))

(call_expression function: (identifier) @call.name) @call
(call_expression
  function: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name)) @call
(new_expression constructor: (identifier) @call.name) @call.new
(new_expression
  constructor: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name)) @call.new

(export_statement
  "default"
  declaration: [(function_declaration name: (_) @export.default)
                (generator_function_declaration name: (_) @export.default)
                (class_declaration name: (_) @export.default)])
(export_statement "default" value: (identifier) @export.default)

(comment) @comment
(decorator) @annotation

; Typed names (receiver typing): `const x = new Foo()`, `this.x = new Foo()`.
(variable_declarator name: (identifier) @local.name
  value: (new_expression constructor: [(identifier) (member_expression)] @local.type))
(assignment_expression left: (member_expression object: (this)) @local.name
  right: (new_expression constructor: [(identifier) (member_expression)] @local.type))

; Functions used as values (callbacks): arguments, object values, returns, assignments.
(arguments (identifier) @reference)
(arguments (member_expression object: (_) @reference.receiver property: (property_identifier) @reference))
(pair value: (identifier) @reference)
(return_statement (identifier) @reference)
(assignment_expression right: (identifier) @reference)
(variable_declarator value: (identifier) @reference)

; Re-exports are import bindings of the re-exporting file: `export { a as b } from './x'`,
; `export * from './x'`; and a dynamic `import()` of a literal path bound to a name.
(export_statement
  (export_clause (export_specifier name: (_) @import.name))
  source: (string (string_fragment) @import.module)) @import
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_) @import.alias))
  source: (string (string_fragment) @import.module)) @import
(export_statement "*" source: (string (string_fragment) @import.module) @import.glob) @import
(variable_declarator name: (identifier) @import.alias
  value: (await_expression
    (call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module))))) @import

; Components and handlers wrapped in a higher-order call are definitions:
; `const View = memo(() => ...)`, `forwardRef(function (p, ref) {...})`, `useCallback(...)`.
((variable_declarator
   name: (identifier) @name
   value: (call_expression
     function: [(identifier) (member_expression)] @_wrapper
     arguments: (arguments . [(arrow_function) (function_expression)]))) @definition.function
  (#match? @_wrapper "^(React\\.)?(memo|forwardRef|lazy|useCallback|observer|debounce|throttle|once|styled)$"))

; `export * as ns from './x'`, `const { a: b } = require('./x')`, named class expressions,
; and CommonJS `module.exports = X` as the module's default export.
(export_statement (namespace_export (identifier) @import.alias)
  source: (string (string_fragment) @import.module)) @import
((variable_declarator
   name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias))
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @import.module)))) @import
  (#eq? @_require "require"))
(class name: (_) @name) @definition.class
((assignment_expression
   left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
   right: [(identifier) @export.default
           (class name: (_) @export.default)
           (function_expression name: (identifier) @export.default)])
  (#eq? @_module "module") (#eq? @_exports "exports"))

; `super(...)` in a constructor calls the base class's constructor.
(call_expression function: (super) @call.name) @call

; Private members: `this.#dispatch()`.
(call_expression
  function: (member_expression object: (_) @call.receiver property: (private_property_identifier) @call.name)) @call
