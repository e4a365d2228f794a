"""OpenAPI tools (phi-core's): the operations of the APIs the config names, offered to the model as tools."""
