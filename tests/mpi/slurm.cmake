# Issue 47: a real Slurm started by the fixtures (munge, slurmctld, slurmd;
# one node here, two in the lab): srun with both MPIs, mpiexec inside an
# allocation, harmonize-ab as job steps, the sbatch examples.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_slurm.py TIMEOUT 900 LABELS slurm)
