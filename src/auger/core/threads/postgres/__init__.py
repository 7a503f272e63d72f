"""The thread database on PostgreSQL (`database_url = "postgresql://…"`): the backend, auger's
tables and migrations, LangGraph's saver and rows, full-text search. psycopg loads only here."""
