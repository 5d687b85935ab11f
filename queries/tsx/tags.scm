; inherits: typescript
; TSX: the TypeScript captures apply unchanged (JSX elements hold no definitions).

; JSX props holding functions (`onClick={handle}`).
(jsx_expression (identifier) @reference)
(jsx_expression (member_expression object: (_) @reference.receiver property: (property_identifier) @reference))
