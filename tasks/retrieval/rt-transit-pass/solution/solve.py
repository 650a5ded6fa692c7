# Fares from https://corpus.local/transit/valdmoor: day pass 9.80 EUR, 72-hour pass 25.60 EUR.
day, h72 = 9.80, 25.60
print(f"cheaper=72-hour pass\nsaving={3 * day - h72:.2f}")
