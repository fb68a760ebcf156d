"""The abstract interpreter: one flow-sensitive pass per function (and the module body).

The interpreter walks statements in order with an environment mapping names and dotted
attribute paths (`h`, `self.hidden`) to abstract `Value`s. Branches are analysed separately
and joined; loops are run once as a probe to learn what one iteration produces, then again
with every name the body (re)defines tagged as a `Carry`, so a value that flows from one
iteration into the next can be recognised where it is used. Nothing here knows any rule.

`FunctionInterpreter` is built in layers, each a class adding one concern to the one below
(a layer calls down, never up; the dispatch tables call the `_expr_*`/`_stmt_*` handlers):

| Layer | Module | Concern |
|---|---|---|
| `InterpreterState` | `state` | environment, reads of carried values, frames, events |
| `GraphEffects` | `graph_effects` | saved-tensor graph: what ops save, in-place changes, backward |
| `TrainingEffects` | `training_effects` | parameters, freezing, optimizers, state across calls |
| `ExpressionEvaluator` | `expressions` | expressions other than calls; assignment targets |
| `ModuleCalls` | `module_calls` | calls of `nn.Module`s (torch's and the file's) |
| `TorchCalls` | `torch_calls` | torch functions, tensor methods, numpy on tensors |
| `CallEvaluator` | `calls` | call dispatch, builtins, methods, functions of the file |
| `FunctionInterpreter` | `statements` | statements, branches, loops and their carries |

`ModuleInterpreter` (`module`) drives one file: scopes, classes, module-level names and
function summaries (`summary`). Joins of environments and grad modes live in `environment`.
"""
