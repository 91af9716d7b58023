"""Online overbooking planner (in progress)."""
