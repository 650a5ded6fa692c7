# https://corpus.local/support/aurex-dw-60-error-codes lists E-9440 -> circulation pump.
from pathlib import Path

Path("service_request.txt").write_text("E-9440: circulation pump\n")
print("component=circulation pump")
