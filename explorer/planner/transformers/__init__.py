"""The planner's transformer side: the network beside its paper (network) and the plan over
the layout search (plan). Their shapes and counts are the workloads' (explorer/workloads/).
"""
