"""Execution-time predictors: how long the local server takes, from a roofline (roofline.py)
or from calibrated rates (fitted.py)."""
