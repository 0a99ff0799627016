#include "harmonize/interleave/mpi/algorithm_switch.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "common/letter_case.hpp"
#include "harmonize/interleave/algorithm_names.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize::interleave {

struct AlgorithmSwitch::Variable {
#ifndef HARMONIZE_SMPI
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
#endif
  int initial = 0;
  std::vector<int> per_side;
};

AlgorithmSwitch::AlgorithmSwitch() = default;

namespace {

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

#ifndef HARMONIZE_SMPI
std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// The index of control variable `name`; nullopt when the MPI has none.
std::optional<int> cvar_index(const std::string& name) {
  int index = -1;
  if (PMPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS || index < 0) return std::nullopt;
  return index;
}

// An algorithm variable as the MPI describes it.
struct Described {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int binding = 0;
  MPI_T_enum enumeration = MPI_T_ENUM_NULL;
  std::string description;
};

std::optional<Described> describe(int index) {
  char name[256];
  char description[4096] = {};
  int name_length = sizeof name;
  int description_length = sizeof description;
  int verbosity = 0;
  int scope = 0;
  Described found;
  if (PMPI_T_cvar_get_info(index, name, &name_length, &verbosity, &found.type, &found.enumeration,
                           description, &description_length, &found.binding, &scope) != MPI_SUCCESS)
    return std::nullopt;
  found.description.assign(description, strnlen(description, sizeof description));
  return found;
}

// Open MPI's choices: its enumeration's names, which must be the values 0, 1, ...
std::vector<std::string> enumerated_choices(MPI_T_enum enumeration) {
  int count = 0;
  char name[256];
  int length = sizeof name;
  if (enumeration == MPI_T_ENUM_NULL ||
      PMPI_T_enum_get_info(enumeration, &count, name, &length) != MPI_SUCCESS || count <= 0)
    return {};
  std::vector<std::string> names;
  for (int item = 0; item < count; ++item) {
    int value = -1;
    length = sizeof name;
    if (PMPI_T_enum_get_item(enumeration, item, &value, name, &length) != MPI_SUCCESS ||
        value != item)
      return {};
    names.emplace_back(name, strnlen(name, sizeof name));
  }
  return names;
}

// Open MPI reads the forced algorithms only with dynamic rules on.
bool open_mpi_dynamic_rules() {
  const std::optional<int> index = cvar_index("coll_tuned_use_dynamic_rules");
  if (!index) return false;
  // Read as the type the MPI declares: a wider buffer read by its low byte
  // would be wrong on a big-endian machine.
  const std::optional<Described> described = describe(*index);
  if (!described || (described->type != MPI_INT && described->type != MPI_C_BOOL)) return false;
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = 0;
  int as_int = 0;
  bool as_bool = false;
  void* value = described->type == MPI_INT ? static_cast<void*>(&as_int) : &as_bool;
  const bool read = PMPI_T_cvar_handle_alloc(*index, nullptr, &handle, &count) == MPI_SUCCESS &&
                    count == 1 && PMPI_T_cvar_read(handle, value) == MPI_SUCCESS;
  if (handle != MPI_T_CVAR_HANDLE_NULL) (void)PMPI_T_cvar_handle_free(&handle);
  return read && (as_int != 0 || as_bool);
}
#endif

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
    const std::string prefix = "HARMONIZE_INTERLEAVE side '" + first_setting(sides, operation) +
                               "': " + upper_case(operation) + ": ";
    const std::string mpich_name = "MPIR_CVAR_" + upper_case(operation) + "_INTRA_ALGORITHM";
    const std::string ompi_name = "coll_tuned_" + operation + "_algorithm";
    std::optional<int> index = cvar_index(mpich_name);
    const bool open_mpi = !index && (index = cvar_index(ompi_name));
    if (!index) {
      error = prefix + "this MPI has no control variable for its algorithm (" + mpich_name +
              " or " + ompi_name + ")";
      return nullptr;
    }
    const std::string& variable_name = open_mpi ? ompi_name : mpich_name;
    if (open_mpi && !open_mpi_dynamic_rules()) {
      error =
          prefix + "Open MPI reads " + ompi_name +
          " only with coll_tuned_use_dynamic_rules: set OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
          "(harmonize-ab --interleave does)";
      return nullptr;
    }
    const std::optional<Described> described = describe(*index);
    if (!described || described->type != MPI_INT || described->binding != MPI_T_BIND_NO_OBJECT) {
      error = prefix + variable_name + " is not a process-wide integer this library can write";
      return nullptr;
    }
    const std::vector<std::string> names = open_mpi
                                               ? enumerated_choices(described->enumeration)
                                               : mpich_algorithm_choices(described->description);
    if (names.empty()) {
      error = prefix + "the MPI does not list " + variable_name +
              "'s choices in a form harmonize reads, so no value can be checked";
      return nullptr;
    }
    Variable variable;
    int count = 0;
    if (PMPI_T_cvar_handle_alloc(*index, nullptr, &variable.handle, &count) != MPI_SUCCESS ||
        count != 1 || PMPI_T_cvar_read(variable.handle, &variable.initial) != MPI_SUCCESS ||
        PMPI_T_cvar_write(variable.handle, &variable.initial) != MPI_SUCCESS) {
      if (variable.handle != MPI_T_CVAR_HANDLE_NULL)
        (void)PMPI_T_cvar_handle_free(&variable.handle);
      error = prefix + variable_name + " cannot be read and written through MPI_T";
      return nullptr;
    }
    for (const config::InterleaveSide& each : sides.sides) {
      const config::AlgorithmChoice* choice = choice_of(each, operation);
      const std::optional<int> value =
          choice == nullptr ? variable.initial : algorithm_value(choice->value, names);
      if (!value) {
        (void)PMPI_T_cvar_handle_free(&variable.handle);
        error = "HARMONIZE_INTERLEAVE side '" + each.name + "': " + upper_case(operation) + "=" +
                choice->value + " is not one of " + variable_name + "'s choices (" + joined(names) +
                ", or their number from 0)";
        return nullptr;
      }
      variable.per_side.push_back(*value);
    }
    result->variables_.push_back(std::move(variable));
    result->per_communicator_ = open_mpi;
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

bool AlgorithmSwitch::sets_algorithm(std::size_t side) const {
  return std::any_of(variables_.begin(), variables_.end(), [side](const Variable& variable) {
    return variable.per_side.at(side) != variable.initial;
  });
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

MPI_Comm AlgorithmSwitch::side_communicator(MPI_Comm user, std::size_t side) {
  const std::lock_guard lock(lock_);
  for (Variable& variable : variables_) write(variable, variable.per_side.at(side));
  // Split, not dup: the user's attributes and their copy callbacks stay out.
  // The new communicator inherits the user's error handler, as a duplicate.
  int rank = 0;
  MPI_Comm made = MPI_COMM_NULL;
  int status = PMPI_Comm_rank(user, &rank);
  if (status == MPI_SUCCESS) status = PMPI_Comm_split(user, 0, rank, &made);
  for (Variable& variable : variables_) write(variable, variable.initial);
  sync::check_mpi(status, "PMPI_Comm_split");
  return made;
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
