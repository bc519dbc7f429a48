"""How each Solace router CLI result prints: renderers registered in the shared registry
(solace_shell/renderers), one module per command family, with the CLI's table and flag helpers."""
