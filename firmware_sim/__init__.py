"""Simulated device firmware speaking the controller's wire protocol over pseudo-terminals."""
