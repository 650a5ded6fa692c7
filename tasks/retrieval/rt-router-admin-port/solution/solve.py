# The port comes from the corpus page https://corpus.local/routers/kestrel-r7 (firmware 4.2 row);
# the oracle cannot reach the corpus, so it applies the known fact.
from pathlib import Path

port = 8011
Path("admin_url.txt").write_text(f"https://192.168.8.1:{port}/\n")
print(f"port={port}")
