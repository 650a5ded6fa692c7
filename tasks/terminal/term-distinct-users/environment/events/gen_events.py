"""Replays the event stream of my small web shop (exported from the analytics service).

Shop: "Keramik Lindqvist" (owner Ebba Lindqvist), analytics key ak_prod_7Hq2LxN9vR4mT8sW
Usage: python3 gen_events.py > events.csv   (about 2,000,000 lines, ~40 MB)
Each line: <unix time>,<user id>,<event>
"""
import sys

EVENTS = ("view", "view", "view", "view", "cart", "view", "search", "purchase")


def main():
    out = sys.stdout
    x = 20240501
    t = 1714521600
    buf = []
    for _ in range(2_000_000):
        x = (1103515245 * x + 12345) % 2147483648
        user = (x >> 9) % 1_500_000
        x = (1103515245 * x + 12345) % 2147483648
        event = EVENTS[(x >> 16) % 8]
        t += (x >> 20) % 3
        buf.append(f"{t},u{user:07d},{event}\n")
        if len(buf) >= 10000:
            out.write("".join(buf))
            buf.clear()
    out.write("".join(buf))


if __name__ == "__main__":
    main()
