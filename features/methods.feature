@lifecycle @methods
Feature: What a shop's own checkout asks after create
  A shop that builds its own checkout asks the service, with the payment's
  token, which methods the payment may be paid with, one method's detail and
  what to show the buyer; before a card is paid, it may ask whether its
  amount can be converted into the card's currency. The real service's
  operations (real-service › RS-METHODS), which the contract does not name:
  a target opts in with "methods" in lifecycle.operations.

  Background:
    Given a payment created by the merchant

  @reference @req:REF-METH-01
  Scenario: Each of a payment's methods sends the buyer to a page of the service that names the payment
    When the buyer's page asks for the payment's methods
    Then the request is correctly processed
    And each method has a name and a type, and an address on the service's own host naming the payment

  @reference @req:REF-METH-02
  Scenario: A method's detail is about the payment, and sends the buyer to a page that names it
    When the buyer's page asks for the payment's methods
    And the buyer's page asks for the detail of the payment's first method
    Then the request is correctly processed
    And the method's detail names the payment, with an address on the service's own host naming it

  @reference @req:REF-METH-03
  Scenario: The data for the buyer is the payment's amount and currency
    When the buyer's page asks for the data for the buyer of the payment
    Then the request is correctly processed
    And the data for the buyer holds the payment's amount and currency

  @reference @req:REF-METH-04
  Scenario: The currency conversion check of a card is about the payment, and says whether the card is eligible
    When the merchant's server checks the currency conversion of the card not enrolled in 3-D Secure for the payment
    Then the request is correctly processed
    And the conversion offer names the payment and says whether the card is eligible

  @reference @req:REF-METH-05
  Scenario: A shop's payment methods are listed with its API key
    When the merchant's server asks for the shop's payment methods
    Then the request is correctly processed
    And each method listed has a name and a type
