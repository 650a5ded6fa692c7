import sqlite3

con = sqlite3.connect("household.db")
rows = con.execute("""
    SELECT t.category, -SUM(t.amount_cents) AS total
    FROM transactions t JOIN accounts a ON a.id = t.account_id
    WHERE a.name = 'joint' AND t.amount_cents < 0 AND t.booked BETWEEN '2024-01-01' AND '2024-03-31'
    GROUP BY t.category ORDER BY total DESC
""").fetchall()
with open("q1_spending.csv", "w") as fh:
    fh.write("category,total_eur\n")
    for cat, total in rows:
        fh.write(f"{cat},{total // 100}.{total % 100:02d}\n")
print(f"category={rows[0][0]}")
