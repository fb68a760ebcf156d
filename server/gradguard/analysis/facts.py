"""The facts rules read: one import surface over the analysis.

Rules import from `gradguard.core`, `gradguard.rewrite`, this module and
`gradguard.analysis.torch_api` only (a test enforces it), so what the analysis knows has one
front door and the modules behind it can be split and moved freely. Facts that cost a pass
of their own (grad-mode context, unfilled `.grad` reads, hooks, the torch alias) are
computed once per module by the providers of `RuleContext` (see `gradguard.core.rule`).
See docs/contributing.md for which fact answers which question.
"""

from __future__ import annotations

from gradguard.analysis.accumulation import (
    CountedWindow,
    HandedWindow,
    LoopWindow,
    LossPath,
    batch_appends,
    counted_window,
    counts_to_a_step,
    drawn_list,
    drawn_lists,
    handed_window,
    local_callables,
    loop_window,
    periodic_divisor,
    rescales_grad,
    returning_helpers,
    scales_by,
    sums_by_reduction,
)
from gradguard.analysis.bindings import sole_assignment
from gradguard.analysis.carried_history import carried_history
from gradguard.analysis.checkpoints import reentrant_keyword
from gradguard.analysis.dependencies import assigned_names, names_feeding, read_names, reads_key
from gradguard.analysis.events import (
    Accumulation,
    Append,
    ArgumentFreedByCall,
    AttributeSet,
    CheckpointInput,
    Conversion,
    Event,
    Events,
    ForwardCall,
    FreedByCall,
    GradRead,
    InferenceSaved,
    InPlaceChange,
    IntegerGradRequest,
    LoopTrips,
    LossInput,
    ModuleCall,
    ModuleMethodCall,
    ModuleModeCall,
    OptimizedTensor,
    OptimizerCall,
    RepeatedDraw,
    RequiresGradCall,
    StaleOptimizer,
    StateAppend,
)
from gradguard.analysis.forced_grad import ForcedGrad, forced_grad_backprops, real_cut
from gradguard.analysis.grad_context import GradContext
from gradguard.analysis.graph import SavedNode
from gradguard.analysis.hooks import hook_receivers, may_be_hooked, may_have_hooks, may_keep_hooks
from gradguard.analysis.imports import torch_alias
from gradguard.analysis.interpreter.summary import REBOUND_PREFIX
from gradguard.analysis.kept_histories import (
    kept_list_class,
    looped_calls,
    may_feed_a_backward,
    runs_on_every_call,
)
from gradguard.analysis.loop_entry import fewest_trips
from gradguard.analysis.method_order import called_after, method_class
from gradguard.analysis.mode_switches import ModeSwitch, ModeSwitches, calls_in
from gradguard.analysis.model import (
    BackwardCall,
    FunctionNode,
    InPlaceOnSaved,
    LoopNode,
    ModuleAnalysis,
    TorchCall,
)
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.names import (
    arguments_by_parameter,
    callee_name,
    dotted,
    identifier_spelling,
    kept_parameters,
    local_binding_counts,
    may_name_an_optimizer,
    mentions,
    parameter_names,
    passed_keyword,
)
from gradguard.analysis.optimized_modules import optimized as optimized_module
from gradguard.analysis.optimizer_reach import UnreachedOptimizer, unreached_optimizers
from gradguard.analysis.parameter_iterators import Consumption, ReusedIterator, reused_iterators
from gradguard.analysis.parameters import OptimizedParameters, Replacement, holds_no_parameters
from gradguard.analysis.repeated_backward import RepeatedBackward, repeated_backwards
from gradguard.analysis.saved_parameters import ParameterSaves, SavedParameter, bindings_of
from gradguard.analysis.unfilled_grads import UnfilledRead, unfilled_grad_reads
from gradguard.analysis.values import (
    Activation,
    ActivationKind,
    Carry,
    Grad,
    GradOff,
    Kind,
    Loss,
    LossKind,
    ModuleRef,
    Value,
)
from gradguard.analysis.walk import (
    innermost_first,
    module_nodes,
    module_nodes_of,
    own_nodes,
    within,
)
from gradguard.analysis.weight_updates import may_update_in_place

__all__ = [
    "REBOUND_PREFIX",
    "Accumulation",
    "Activation",
    "ActivationKind",
    "Append",
    "ArgumentFreedByCall",
    "AttributeSet",
    "BackwardCall",
    "Carry",
    "CheckpointInput",
    "Consumption",
    "Conversion",
    "CountedWindow",
    "Event",
    "Events",
    "ForcedGrad",
    "ForwardCall",
    "FreedByCall",
    "FunctionNode",
    "Grad",
    "GradContext",
    "GradOff",
    "GradRead",
    "HandedWindow",
    "InPlaceChange",
    "InPlaceOnSaved",
    "InferenceSaved",
    "IntegerGradRequest",
    "Kind",
    "LoopNode",
    "LoopTrips",
    "LoopWindow",
    "Loss",
    "LossInput",
    "LossKind",
    "LossPath",
    "ModeSwitch",
    "ModeSwitches",
    "ModuleAnalysis",
    "ModuleCall",
    "ModuleMethodCall",
    "ModuleModeCall",
    "ModuleRef",
    "NameFlow",
    "OptimizedParameters",
    "OptimizedTensor",
    "OptimizerCall",
    "ParameterSaves",
    "RepeatedBackward",
    "RepeatedDraw",
    "Replacement",
    "RequiresGradCall",
    "ReusedIterator",
    "SavedNode",
    "SavedParameter",
    "StaleOptimizer",
    "StateAppend",
    "TorchCall",
    "UnfilledRead",
    "UnreachedOptimizer",
    "Value",
    "arguments_by_parameter",
    "assigned_names",
    "batch_appends",
    "bindings_of",
    "called_after",
    "callee_name",
    "calls_in",
    "carried_history",
    "counted_window",
    "counts_to_a_step",
    "dotted",
    "drawn_list",
    "drawn_lists",
    "fewest_trips",
    "forced_grad_backprops",
    "handed_window",
    "holds_no_parameters",
    "hook_receivers",
    "identifier_spelling",
    "innermost_first",
    "kept_list_class",
    "kept_parameters",
    "local_binding_counts",
    "local_callables",
    "loop_window",
    "looped_calls",
    "may_be_hooked",
    "may_feed_a_backward",
    "may_have_hooks",
    "may_keep_hooks",
    "may_name_an_optimizer",
    "may_update_in_place",
    "mentions",
    "method_class",
    "module_nodes",
    "module_nodes_of",
    "names_feeding",
    "optimized_module",
    "own_nodes",
    "parameter_names",
    "passed_keyword",
    "periodic_divisor",
    "read_names",
    "reads_key",
    "real_cut",
    "reentrant_keyword",
    "repeated_backwards",
    "rescales_grad",
    "returning_helpers",
    "reused_iterators",
    "runs_on_every_call",
    "scales_by",
    "sole_assignment",
    "sums_by_reduction",
    "torch_alias",
    "unfilled_grad_reads",
    "unreached_optimizers",
    "within",
]
