"""External harnesses: a suite's own agent loop in a disposable container (``container``), the
neutral settings it is given (``environment``), its only way out, to the recording proxy
(``relay``), and the adapter contract every agent loop implements (``contract``)."""
