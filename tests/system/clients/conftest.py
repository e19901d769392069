"""The clients' tests."""

# A program run by tests/system/clients/test_python_client.py against the client it generates:
# not importable here (the client exists only in that test's directory).
collect_ignore = ["python_client_e2e.py"]
