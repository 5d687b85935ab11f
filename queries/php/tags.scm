; PHP extraction captures (see queries/README.md).

; Types. `use Trait;` in a class body copies the trait's methods into the class, so the
; trait is a base: `$this->hello()` finds a method the trait defines.
(class_declaration name: (name) @name) @definition.class
(class_declaration name: (name) @name (base_clause [(name) @base (qualified_name (name) @base)])) @definition.class
(class_declaration name: (name) @name
  (class_interface_clause [(name) @implements (qualified_name (name) @implements)])) @definition.class
(class_declaration name: (name) @name
  body: (declaration_list (use_declaration [(name) @base (qualified_name (name) @base)]))) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(interface_declaration name: (name) @name (base_clause [(name) @base (qualified_name (name) @base)])) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(trait_declaration name: (name) @name
  body: (declaration_list (use_declaration [(name) @base (qualified_name (name) @base)]))) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(enum_declaration name: (name) @name
  (class_interface_clause [(name) @implements (qualified_name (name) @implements)])) @definition.enum
(enum_declaration name: (name) @name
  body: (enum_declaration_list (use_declaration [(name) @base (qualified_name (name) @base)]))) @definition.enum

; Functions and methods.
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name
  return_type: [(named_type) (optional_type (named_type))] @returns) @definition.function
(method_declaration name: (name) @name
  return_type: [(named_type) (optional_type (named_type))] @returns) @definition.method

; Imports: `use` declarations and the files `require`/`include` load (the language's
; hook reads both).
(namespace_use_declaration) @import
(require_expression) @import
(require_once_expression) @import
(include_expression) @import
(include_once_expression) @import

; The declared namespace: the file's module path.
(namespace_definition name: (namespace_name) @package)

; Calls. A fully qualified function (`\App\f()`) is looked up by its name; a variable
; function (`$f()`, `$this->$m()`) has no name to resolve and is left out.
(function_call_expression function: (name) @call.name arguments: (arguments) @call.args) @call
(function_call_expression function: (qualified_name (name) @call.name)
  arguments: (arguments) @call.args) @call
(member_call_expression object: (_) @call.receiver name: (name) @call.name
  arguments: (arguments) @call.args) @call
(nullsafe_member_call_expression object: (_) @call.receiver name: (name) @call.name
  arguments: (arguments) @call.args) @call
(scoped_call_expression scope: (_) @call.receiver name: (name) @call.name
  arguments: (arguments) @call.args) @call
(object_creation_expression (name) @call.name) @call.new
(object_creation_expression (qualified_name (name) @call.name)) @call.new

; Typed names: parameters, promoted constructor parameters, typed properties and
; `$x = new Foo()`.
(simple_parameter type: (named_type [(name) @local.type (qualified_name (name) @local.type)])
  name: (variable_name (name) @local.name))
(simple_parameter type: (optional_type (named_type [(name) @local.type (qualified_name (name) @local.type)]))
  name: (variable_name (name) @local.name))
(property_promotion_parameter type: (named_type [(name) @local.type (qualified_name (name) @local.type)])
  name: (variable_name (name) @local.name))
(property_declaration type: (named_type [(name) @local.type (qualified_name (name) @local.type)])
  (property_element name: (variable_name (name) @local.name)))
(property_declaration type: (optional_type (named_type [(name) @local.type (qualified_name (name) @local.type)]))
  (property_element name: (variable_name (name) @local.name)))
(assignment_expression left: (variable_name (name) @local.name)
  right: (object_creation_expression [(name) @local.type (qualified_name (name) @local.type)]))

(comment) @comment
(attribute_list) @annotation
