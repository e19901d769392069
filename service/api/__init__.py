"""HTTP: one module per resource, request and response structs next to their handlers."""
