"""The rules: one module per rule, found by `gradguard.core.rule.all_rules`."""
