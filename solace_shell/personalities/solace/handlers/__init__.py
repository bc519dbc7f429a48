"""What each Solace router CLI command does: handlers registered in the shared registry
(solace_shell/handlers) under the ids grammar/data/commands names, one module per command family."""
