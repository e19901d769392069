"""The use cases: one module per feature, every rule of that feature (an API module decodes,
calls one, encodes)."""
