// Errors raised while reading user input (scenes, meshes, options). Never thrown inside a step:
// the step reports trouble through StepStatus instead (STYLE.md lesson 9).
#pragma once
#include <stdexcept>
#include <string>

namespace coulomb {

// A mistake in user input. `pointer` is the JSON pointer of the offending value (or the option
// name for command-line mistakes); what() is "POINTER: MESSAGE".
class InputError : public std::runtime_error {
 public:
  InputError(std::string pointer, const std::string& message)
      : std::runtime_error(pointer.empty() ? message : pointer + ": " + message),
        pointer_(std::move(pointer)), message_(message) {}
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }

 private:
  std::string pointer_;
  std::string message_;
};

}  // namespace coulomb
