; inherits: typescript
; TSX: the TypeScript captures apply unchanged (JSX elements hold no definitions).
