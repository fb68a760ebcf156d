"""The whole project: names imported from other files resolved to what those files define.

`ProjectIndex` (in `index`) finds the files an import refers to (`roots`, `resolve`), parses
and summarises each once per content (`ForeignModule`), and answers the interpreter's
questions for one importing file (`FileImports`, the `analysis.project_imports` protocol).
`session` holds the index a `gradguard check` process uses and what each checked file
depended on (for the results cache). Nothing here imports or runs the user's code.
"""
