; inherits: ecma
; JavaScript-only captures (see queries/README.md).

(class_declaration name: (_) @name (class_heritage (identifier) @base)) @definition.class
(class_declaration name: (_) @name (class_heritage (member_expression) @base)) @definition.class
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; JSX props holding functions (`onClick={handle}`).
(jsx_expression (identifier) @reference)
(jsx_expression (member_expression object: (_) @reference.receiver property: (property_identifier) @reference))

; Names a JSDoc `/** @type {T} */` comment above the declaration, or a cast comment before
; the value, may type: variables, fields assigned on `this`, class fields.
(variable_declarator name: (identifier) @local.doc)
(assignment_expression left: (member_expression object: (this)) @local.doc)
(field_definition property: (property_identifier) @local.doc)
