# Chain in the corpus: islands/ostrava-minor -> anthem "Song of Ostrava Minor" ->
# composer Edda Marhaug -> born in Brunhaven -> population 21468 (known facts; no corpus here).
from pathlib import Path

p = Path("letter_draft.txt")
p.write_text(p.read_text().replace("[POPULATION]", "21468"))
print("town=Brunhaven\npopulation=21468")
