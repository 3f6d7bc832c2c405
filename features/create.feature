@create
Feature: Create a payment
  Every transaction starts with payment/create: the merchant's server,
  authenticated by its API key, opens a payment process and gets back the
  token and the identifier of the payment.

  @core @req:CREATE-01 @req:CREATE-02 @req:CREATE-03 @req:CREATE-04 @production-safe
  Scenario: An accepted create returns a token, an identifier and no redirect yet
    When the merchant creates a payment
    Then the request is correctly processed
    And the payment token is a UUID
    And the payment ID is a string of digits
    And the redirect address is null

  @core @req:CREATE-05 @production-safe
  Scenario: Each payment gets its own token and its own identifier
    When the merchant creates two payments
    Then their payment tokens differ
    And their payment IDs differ

  @reference @req:REF-ENV-01 @production-safe
  Scenario: An accepted create answers HTTP 200 with a twelve-digit payment ID
    When the merchant creates a payment
    Then the answer has HTTP status 200
    And the payment ID has 10 to 12 digits

  @reference @req:REF-VAL-12 @production-safe @real-client
  Scenario Outline: An amount with no decimals or one, as the real service takes it, is accepted: <amount>
    When the merchant creates a payment with amount "<amount>"
    Then the request is correctly processed

    Examples:
      | amount |
      | 100    |
      | 72.5   |
      | 1245.6 |

  @reference @req:REF-VAL-01 @req:REF-ENV-01 @production-safe
  Scenario Outline: An amount that is not a number with a dot and at most two decimals is refused: <amount>
    When the merchant creates a payment with amount "<amount>"
    Then the request is refused with HTTP 400 and code "<code>"

    Examples:
      | amount     | code |
      | 10.000     | 1114 |
      | 10,00      | 1456 |
      | ten        | 1113 |
      | -1.00      | 1113 |
      | 0.00       | 1146 |
      | 1000000000 | 1147 |
      | 1000000.00 | 1147 |

  @reference @req:REF-VAL-02 @req:REF-ENV-01 @production-safe
  Scenario Outline: A currency that is not an ISO 4217 code is refused: <currency>
    When the merchant creates a payment with currency "<currency>"
    Then the request is refused with HTTP 400 and code "1111"

    Examples:
      | currency |
      | eur      |
      | EURO     |
      | EU       |
      | XXX      |

  @reference @req:REF-VAL-03 @req:REF-ENV-01 @production-safe
  Scenario Outline: An unusable shop transaction ID is refused: <what>
    When the merchant creates a payment with shopTransactionID "<id>"
    Then the request is refused with HTTP 400 and code "<code>"

    Examples:
      | what          | id                                                  | code |
      | empty         |                                                     | 1115 |
      | 51 characters | 123456789012345678901234567890123456789012345678901 | 1116 |

  @reference @req:REF-VAL-04 @req:REF-ENV-01 @production-safe
  Scenario: A shop login that is not the API key's is refused
    When the merchant creates a payment with shopLogin "ANOTHER_SHOP"
    Then the request is refused with HTTP 400 and code "1131"

  @reference @req:REF-VAL-05 @req:REF-ENV-01 @production-safe
  Scenario Outline: A create without one of its fields is refused, naming it: <field>
    When the merchant creates a payment without <field>
    Then the request is refused with HTTP 400 and code "<code>"

    Examples:
      | field             | code |
      | shopLogin         | 1105 |
      | amount            | 1112 |
      | currency          | 1111 |
      | shopTransactionID | 1115 |

  @reference @req:REF-VAL-05 @req:REF-ENV-01 @production-safe
  Scenario: A create field of the wrong type is refused, naming it
    When the merchant creates a payment with amount as the JSON value 10.00
    Then the request is refused with HTTP 400 and code "1113"

  @reference @req:REF-PAY-05
  Scenario: Return addresses passed to create are where its buyer returns, with the service's parameters
    When the merchant creates a payment returning to "https://shop.example/thanks?order=7" or "https://shop.example/sorry"
    And the buyer pays with the card not enrolled in 3-D Secure
    Then the redirect address is the page "https://shop.example/thanks?order=7", with any parameters the service appends
    And the redirect address carries the shop login and the payment token as query values

  @reference @req:REF-PAY-06 @production-safe
  Scenario: A create for pay-by-link answers the payment's pay-by-link page
    When the merchant creates a payment to be paid by link, sent by "EMAIL"
    Then the request is correctly processed
    And the redirect address is the payment's pay-by-link page
