"""auger's agent hosted by a LangGraph Server (`langgraph dev`, LangGraph Platform): the graph
factory named by the repository's `langgraph.json` (`auger.hosted.graph:make_graph`)."""
