from pathlib import Path

p = Path("rootfs/etc/systemd/system/photo-sync.service")
text = p.read_text()
text = text.replace("After=network.target", "After=network-online.target\nWants=network-online.target")
text = text.replace("EnvironmentFile=/etc/photo-sync.env", "EnvironmentFile=/etc/photo-sync/env")
text = text.replace("ExecStart=photo-sync ", "ExecStart=/usr/local/bin/photo-sync ")
p.write_text(text)
print("problem=exec_path\nproblem=environment_file\nproblem=network_order")
