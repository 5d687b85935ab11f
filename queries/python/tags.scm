; Python extraction captures (see queries/README.md).

(function_definition name: (identifier) @name) @definition.function
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
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name)) @call
