#include "harmonize/interleave/mpi/algorithm_switch.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>

#include "harmonize/interleave/algorithm_names.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize::interleave {

struct AlgorithmSwitch::Variable {
  std::string name;
#ifndef HARMONIZE_SMPI
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
#endif
  int initial = 0;
  std::vector<int> per_side;
};

AlgorithmSwitch::AlgorithmSwitch() = default;

namespace {

#ifndef HARMONIZE_SMPI
std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// The index of control variable `name`; nullopt when the MPI has none.
std::optional<int> cvar_index(const std::string& name) {
  int index = -1;
  if (PMPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS || index < 0) return std::nullopt;
  return index;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}
#endif

// The operations any side sets, in the order first written.
std::vector<std::string> operations_of(const config::InterleaveSides& sides) {
  std::vector<std::string> operations;
  for (const config::InterleaveSide& side : sides.sides)
    for (const config::AlgorithmChoice& choice : side.algorithms)
      if (std::find(operations.begin(), operations.end(), choice.operation) == operations.end())
        operations.push_back(choice.operation);
  return operations;
}

const config::AlgorithmChoice* choice_of(const config::InterleaveSide& side,
                                         const std::string& operation) {
  for (const config::AlgorithmChoice& choice : side.algorithms)
    if (choice.operation == operation) return &choice;
  return nullptr;
}

// The first side that sets `operation`, for an error line.
std::string first_setting(const config::InterleaveSides& sides, const std::string& operation) {
  for (const config::InterleaveSide& side : sides.sides)
    if (choice_of(side, operation) != nullptr) return side.name;
  return {};
}

}  // namespace

std::unique_ptr<AlgorithmSwitch> AlgorithmSwitch::make(const config::InterleaveSides& sides,
                                                       std::string& error) {
  const std::vector<std::string> operations = operations_of(sides);
  if (operations.empty()) return nullptr;
#ifdef HARMONIZE_SMPI
  error = "HARMONIZE_INTERLEAVE side '" + first_setting(sides, operations.front()) +
          "': SimGrid's SMPI has no MPI tool interface to switch a collective's algorithm";
  return nullptr;
#else
  std::unique_ptr<AlgorithmSwitch> result(new AlgorithmSwitch());
  int provided = 0;
  if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    error = "HARMONIZE_INTERLEAVE side '" + first_setting(sides, operations.front()) +
            "': the MPI tool interface (MPI_T_init_thread) failed, no algorithm can be switched";
    return nullptr;
  }
  result->tool_open_ = true;
  for (const std::string& operation : operations) {
    const std::string side = first_setting(sides, operation);
    const std::string prefix =
        "HARMONIZE_INTERLEAVE side '" + side + "': " + upper(operation) + ": ";
    const std::string mpich_name = "MPIR_CVAR_" + upper(operation) + "_INTRA_ALGORITHM";
    const std::string ompi_name = "coll_tuned_" + operation + "_algorithm";
    const std::optional<int> index = cvar_index(mpich_name);
    if (!index) {
      error = prefix + (cvar_index(ompi_name)
                            ? "Open MPI fixes a communicator's algorithm when the communicator is "
                              "made (" +
                                  ompi_name +
                                  " written through MPI_T changes only communicators made after "
                                  "it), so it cannot be switched per call: compare algorithms "
                                  "between runs (harmonize-tune, harmonize-ab --side)"
                            : "this MPI has no control variable for its algorithm (" + mpich_name +
                                  " or " + ompi_name + ")");
      return nullptr;
    }
    char name[256];
    char description[4096];
    int name_length = sizeof name;
    int description_length = sizeof description;
    int verbosity = 0;
    int binding = 0;
    int scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumeration = MPI_T_ENUM_NULL;
    if (PMPI_T_cvar_get_info(*index, name, &name_length, &verbosity, &type, &enumeration,
                             description, &description_length, &binding, &scope) != MPI_SUCCESS ||
        type != MPI_INT || binding != MPI_T_BIND_NO_OBJECT) {
      error = prefix + mpich_name + " is not a process-wide integer this library can write";
      return nullptr;
    }
    const std::vector<std::string> names = mpich_algorithm_choices(
        std::string_view(description, strnlen(description, sizeof description)));
    if (names.empty()) {
      error = prefix + "the MPI does not list " + mpich_name +
              "'s choices in a form harmonize reads, so no value can be checked";
      return nullptr;
    }
    Variable variable;
    variable.name = mpich_name;
    int count = 0;
    if (PMPI_T_cvar_handle_alloc(*index, nullptr, &variable.handle, &count) != MPI_SUCCESS ||
        count != 1 || PMPI_T_cvar_read(variable.handle, &variable.initial) != MPI_SUCCESS ||
        PMPI_T_cvar_write(variable.handle, &variable.initial) != MPI_SUCCESS) {
      if (variable.handle != MPI_T_CVAR_HANDLE_NULL)
        (void)PMPI_T_cvar_handle_free(&variable.handle);
      error = prefix + mpich_name + " cannot be read and written through MPI_T";
      return nullptr;
    }
    result->variables_.push_back(variable);
    for (const config::InterleaveSide& each : sides.sides) {
      const config::AlgorithmChoice* choice = choice_of(each, operation);
      if (choice == nullptr) {
        result->variables_.back().per_side.push_back(variable.initial);
        continue;
      }
      const std::optional<int> value = algorithm_value(choice->value, names);
      if (!value) {
        error = "HARMONIZE_INTERLEAVE side '" + each.name + "': " + upper(operation) + "=" +
                choice->value + " is not one of " + mpich_name + "'s choices (" + joined(names) +
                ", or their number from 0)";
        return nullptr;
      }
      result->variables_.back().per_side.push_back(*value);
    }
  }
  return result;
#endif
}

AlgorithmSwitch::~AlgorithmSwitch() {
#ifndef HARMONIZE_SMPI
  // At MPI_Finalize: a failing write or free changes nothing the program sees.
  for (Variable& variable : variables_) {
    (void)PMPI_T_cvar_write(variable.handle, &variable.initial);
    (void)PMPI_T_cvar_handle_free(&variable.handle);
  }
  if (tool_open_) (void)PMPI_T_finalize();
#endif
}

void AlgorithmSwitch::apply(std::size_t side) {
  const std::lock_guard lock(lock_);
  if (side == current_) return;
  for (Variable& variable : variables_) {
    const int value = variable.per_side.at(side);
    if (current_ < variable.per_side.size() && variable.per_side[current_] == value) continue;
    write(variable, value);
  }
  current_ = side;
}

void AlgorithmSwitch::write(Variable& variable, int value) {
#ifdef HARMONIZE_SMPI
  (void)variable;
  (void)value;
#else
  sync::check_mpi(PMPI_T_cvar_write(variable.handle, &value), "PMPI_T_cvar_write");
#endif
}

}  // namespace harmonize::interleave
