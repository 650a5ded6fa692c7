#!/bin/bash
# Nightly restic backup of documents and photos
export RESTIC_REPOSITORY=sftp:anna@backup.kovacs-home.example:/srv/restic/anna
export RESTIC_PASSWORD='Rz7!velvet-Harbor-31'
restic backup /home/anna/Documents /home/anna/Pictures --exclude-caches
restic forget --keep-daily 7 --keep-weekly 5 --prune
