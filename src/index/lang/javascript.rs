//! JavaScript, TypeScript and TSX: ES modules are files, so there is no language module
//! path; one family (they import each other); the platform's global objects and built-in
//! methods, CommonJS exports, and the rules of Jest/Mocha tests and `export`ed API.

use super::{
    Dispatch, ExtractionRules, FileEntry, ImpactRules, ImportSystem, LanguageSpec, NamePattern,
    PublicApi, ResolutionRules, TestCode,
};

/// Global objects of ECMAScript, Node.js and browsers: a call on one of them (when the name
/// is not bound in the file) leaves the repository.
const GLOBALS: &[&str] = &[
    "JSON",
    "Math",
    "Object",
    "Array",
    "Promise",
    "console",
    "process",
    "window",
    "document",
    "Number",
    "String",
    "Boolean",
    "Date",
    "Reflect",
    "Symbol",
    "Intl",
    "Buffer",
    "globalThis",
    "navigator",
    "Error",
    "Map",
    "Set",
    "WeakMap",
    "WeakSet",
    "RegExp",
    "BigInt",
    "Atomics",
    "Proxy",
    "URL",
    "crypto",
    "performance",
    "location",
    "history",
    "localStorage",
    "sessionStorage",
    "require",
    "module",
    "exports",
];

/// Methods of the web platform and of ECMAScript's built-in prototypes (DOM Standard:
/// `Node`, `Element`, `EventTarget`, `Document`; HTML: canvas, forms; ECMA-262: `Array`,
/// `String`, `Object`, `Date`, `Number`): a JS call of one of these on a receiver of unknown
/// type is more likely the platform's than a repo method's, so it is never guessed (on
/// the npm tree, DOM `svg.setAttribute(...)` calls were linked to three.js's
/// `BufferGeometry.setAttribute`).
const PLATFORM_METHODS: &[&str] = &[
    "setAttribute",
    "getAttribute",
    "removeAttribute",
    "hasAttribute",
    "toggleAttribute",
    "setAttributeNS",
    "getAttributeNS",
    "addEventListener",
    "removeEventListener",
    "dispatchEvent",
    "appendChild",
    "removeChild",
    "insertBefore",
    "replaceChild",
    "replaceChildren",
    "replaceWith",
    "cloneNode",
    "contains",
    "querySelector",
    "querySelectorAll",
    "getElementById",
    "getElementsByClassName",
    "getElementsByTagName",
    "createElement",
    "createElementNS",
    "createTextNode",
    "createDocumentFragment",
    "getContext",
    "getBoundingClientRect",
    "getClientRects",
    "scrollIntoView",
    "scrollTo",
    "focus",
    "blur",
    "click",
    "closest",
    "matches",
    "prepend",
    "before",
    "after",
    "insertAdjacentHTML",
    "insertAdjacentElement",
    "requestPointerLock",
    "requestFullscreen",
    "setPointerCapture",
    "releasePointerCapture",
    "preventDefault",
    "stopPropagation",
    "stopImmediatePropagation",
    "toDataURL",
    "toBlob",
    "drawImage",
    "fillRect",
    "clearRect",
    "strokeRect",
    "fillText",
    "measureText",
    "beginPath",
    "closePath",
    "moveTo",
    "lineTo",
    "arc",
    "stroke",
    "fill",
    "getImageData",
    "putImageData",
    "checkValidity",
    "submit",
    "forEach",
    "indexOf",
    "lastIndexOf",
    "includes",
    "slice",
    "splice",
    "concat",
    "some",
    "every",
    "sort",
    "reverse",
    "shift",
    "unshift",
    "flatMap",
    "findIndex",
    "substring",
    "substr",
    "toLowerCase",
    "toUpperCase",
    "trim",
    "trimStart",
    "trimEnd",
    "startsWith",
    "endsWith",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "padStart",
    "padEnd",
    "repeat",
    "hasOwnProperty",
    "isPrototypeOf",
    "toFixed",
    "toPrecision",
    "getTime",
    "toISOString",
    "toJSON",
    "localeCompare",
    "normalize",
];

pub(super) const JAVASCRIPT: LanguageSpec = LanguageSpec {
    name: "javascript",
    family: Some("js"),
    extensions: &["js", "jsx", "mjs", "cjs"],
    grammar: Some(|| tree_sitter_javascript::LANGUAGE.into()),
    tags: include_str!("../../../queries/javascript/tags.scm"),
    highlights: &[
        tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
        tree_sitter_javascript::HIGHLIGHT_QUERY,
    ],
    comment_kinds: &["comment"],
    doc_prefixes: &["/**"],
    constructor_names: &["constructor"],
    folder_module_stems: &["index"],
    extraction: ExtractionRules {
        doc_tags: Some(super::jsdoc::parse),
        ..ExtractionRules::DEFAULT
    },
    resolution: ResolutionRules {
        imports: ImportSystem::FileSpecifiers,
        globals: GLOBALS,
        platform_methods: PLATFORM_METHODS,
        own_module_objects: &["exports", "module.exports"],
        later_definition_wins: true,
        bare_super_calls_base_constructor: true,
        guess_untyped_methods: true,
        classes_are_values: true,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        // Jest, Vitest and Mocha: `name.test.js`, `name.spec.ts`.
        test_files: &[NamePattern::Marker(&["test", "spec"])],
        test_code: TestCode::BlockCalls(&["describe", "it", "test", "suite"]),
        file_entry: FileEntry::Always,
        public_api: PublicApi::Exports {
            exported: &["export ", "module.exports"],
            private_names: &["#", "_"],
            private_modifiers: &["private ", "protected "],
        },
        dispatch: Dispatch::DuckTyping,
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// TypeScript's rules are JavaScript's, except that its methods are not guessed: its
/// receivers are typed, and an untyped one is more often a library's.
const TYPED: ResolutionRules = ResolutionRules {
    guess_untyped_methods: false,
    ..JAVASCRIPT.resolution
};

pub(super) const TYPESCRIPT: LanguageSpec = LanguageSpec {
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    grammar: Some(|| tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
    tags: include_str!("../../../queries/typescript/tags.scm"),
    highlights: &[
        tree_sitter_typescript::HIGHLIGHTS_QUERY,
        tree_sitter_javascript::HIGHLIGHT_QUERY,
    ],
    resolution: TYPED,
    // The compiler reads JSDoc types in `.js` files only; a `.ts` file's annotations are its
    // types.
    extraction: ExtractionRules::DEFAULT,
    ..JAVASCRIPT
};

pub(super) const TSX: LanguageSpec = LanguageSpec {
    name: "tsx",
    extensions: &["tsx"],
    grammar: Some(|| tree_sitter_typescript::LANGUAGE_TSX.into()),
    tags: include_str!("../../../queries/tsx/tags.scm"),
    highlights: &[
        tree_sitter_typescript::HIGHLIGHTS_QUERY,
        tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
        tree_sitter_javascript::HIGHLIGHT_QUERY,
    ],
    resolution: TYPED,
    // The compiler reads JSDoc types in `.js` files only; a `.ts` file's annotations are its
    // types.
    extraction: ExtractionRules::DEFAULT,
    ..JAVASCRIPT
};
