"""Analysis on `ast`: torch name resolution and one dataflow pass per function whose facts
(autograd state of values, grad-mode regions, loops and loop-carried values, backward
calls) every rule reads."""
