"""The query loops: python.py (mysqlclient), native.py (the C loop of loadgen._native), and
drive.py, which picks one and runs it over one or more connections."""
