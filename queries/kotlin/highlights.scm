; Kotlin syntax highlighting for the source panel (tree-sitter-kotlin-ng ships no
; highlight query), with the standard capture names the themes map.

(line_comment) @comment
(block_comment) @comment

(string_literal) @string
(multiline_string_literal) @string
(character_literal) @string
(number_literal) @number
(float_literal) @number

(annotation) @attribute

(class_declaration name: (identifier) @type)
(object_declaration name: (identifier) @type)
(type_alias type: (identifier) @type)
(user_type (identifier) @type)

(function_declaration name: (identifier) @function)
(call_expression (identifier) @function.call)
(call_expression (navigation_expression (identifier) @function.method .))

(parameter (identifier) @variable.parameter)
(this_expression) @variable.builtin
(super_expression) @variable.builtin

[
  "package" "import" "as" "class" "interface" "object" "fun" "val" "var" "typealias"
  "constructor" "init" "companion" "if" "else" "when" "for" "while" "do" "return"
  "throw" "try" "catch" "finally" "in" "is"
] @keyword

(modifiers) @keyword
