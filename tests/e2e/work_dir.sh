# Sourced by the end-to-end scripts: `work_dir_keep_small DIR` arranges that when the script
# exits with status 0, every file in DIR larger than 1 MiB (models, executables, weights,
# arrays) is deleted, leaving the logs. AlexNet's tests write about 1 GB each, and CI's machine
# may have only a few GB of disk. A failing script keeps everything for a look, and so does a
# passing one with TESSERA_KEEP_WORK=1.
work_dir_keep_small() {
  work_dir_to_prune=$1
  trap work_dir_prune_on_success EXIT
}

work_dir_prune_on_success() {
  local status=$?
  if ((status == 0)) && [[ -z ${TESSERA_KEEP_WORK:-} && -d $work_dir_to_prune ]]; then
    find "$work_dir_to_prune" -type f -size +1M -delete
  fi
}
