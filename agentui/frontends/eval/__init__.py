"""`agentui eval`: task sets run across configurations, here or on a Dask cluster."""
